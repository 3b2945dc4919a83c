/**
 * Recall's answer: the ranked hits hydrated into the memories, code, turns and
 * entities they point at, filtered by time, reranked when asked, and marked where a
 * later memory may replace one.
 * @module
 */
import { currentFirst } from "./current_first.ts";
import { MAX_RESULTS, recall, type RecallDeps } from "./recall.ts";
import { lexicalAsOf } from "./lexical_as_of.ts";
import { validAt } from "./memory_record.ts";
import { plural } from "./vector_lag.ts";
import type { HitComponents, RecallRequest, Source } from "./types.ts";
import type { MemoryRecord } from "./memory_record.ts";
import type { Contradiction } from "./memory_record.ts";
import type { IndexedEntity, TextProjection } from "../../projections/text.ts";
import { hasFacts } from "../../projections/text_entities.ts";
import type { Reranker } from "../embed/reranker.ts";
import {
  type CodeRecord,
  codeRecords,
  entityText,
  type TurnRecord,
  turnRecords,
} from "./hit_records.ts";

/** A recall result with what it points at, ready to format. */
export type RecallItem =
  & { score: number; components: HitComponents }
  & (
    | {
      type: "memory";
      memory: MemoryRecord;
      /** A memory stored later that may replace this one (a number, name or negation changed). */
      newer?: Contradiction;
    }
    | { type: "code"; code: CodeRecord }
    | { type: "turn"; turn: TurnRecord }
    | { type: "entity"; entity: IndexedEntity }
  );

/** Recall's answer: the question, the items in one order, and the caveats to show with them. */
export interface RecallAnswer {
  query: string;
  items: RecallItem[];
  notes: string[];
}

/** The memories an answer is made of, as the store keeps them. */
export interface MemorySource {
  /** The live memories among `ids`. */
  getMany(ids: readonly string[]): Promise<MemoryRecord[]>;
  /** Every memory as it was at `asOf` (forgotten ones included, marked). */
  history(asOf: string): Promise<Map<string, MemoryRecord>>;
  /** For each of `memories`, one stored later that may replace it. */
  newerContradictions(memories: readonly MemoryRecord[]): Promise<Map<string, Contradiction>>;
}

/** Runs recall and hydrates each hit from the graph. */
export class RecallService {
  constructor(
    /** What recall reads: the projections behind its retrievers, the model, code facts. */
    readonly deps: RecallDeps,
    private readonly memories: MemorySource,
    private readonly text: TextProjection,
    /** The graph's entities as they were at a date, by name. */
    private readonly entitiesThen: (asOf: string) => Promise<ReadonlyMap<string, IndexedEntity>>,
    private readonly rerank?: { reranker: Reranker; top: number },
  ) {}

  /**
   * Answers one recall request. With `as_of`, memories are searched by their
   * words as they were then (forgotten and reworded ones included) and shown
   * as they were then, later ones left out, and the graph's entities it finds
   * are shown as they were then (left out when they did not exist, or said
   * nothing); session turns that started later are left out, and code, of
   * which cairn keeps no history, is said to be as it is now; with
   * `valid_at`, only memories valid at that moment are kept. Both filter
   * after ranking, so recall ranks more candidates.
   */
  async run(request: RecallRequest, filters: TimeFilters = {}): Promise<RecallAnswer> {
    const filtering = filters.as_of !== undefined || filters.valid_at !== undefined;
    const then = filters.as_of ? await this.memories.history(filters.as_of) : undefined;
    // More than asked: filters drop some, and a memory past the cut may replace one before it.
    const marking = request.mode !== "lexical" && request.sources.includes("memory");
    const wanted = filtering
      ? MAX_RESULTS
      : marking
      ? Math.max(request.limit, Math.min(request.limit + REPLACEMENTS_PAST_CUT, MAX_RESULTS))
      : request.limit;
    const result = await recall(
      then ? { ...this.deps, lexical: lexicalAsOf(this.deps.lexical, then) } : this.deps,
      { ...request, limit: wanted },
    );
    // Past the cut only memories can come in (replacing one before it): only they are read.
    const hits = filtering
      ? result.hits
      : result.hits.filter((hit, i) => i < request.limit || hit.source === "memory");
    const ids = (source: Source) =>
      hits.filter((hit) => hit.source === source).map((hit) => hit.id);
    const memories = then ??
      new Map((await this.memories.getMany(ids("memory"))).map((m) => [m.id, m]));
    const entities = filters.as_of && ids("entity").length > 0
      ? await this.entitiesThen(filters.as_of)
      : undefined;
    const code = await codeRecords(this.deps.graph, this.text, ids("code"));
    const turns = await turnRecords(this.deps.graph, this.text, ids("turn"));
    const items: RecallItem[] = [];
    // As of a date, the turns of sessions that had not started yet were not known then.
    const asOf = filters.as_of === undefined ? undefined : Date.parse(filters.as_of);
    let later = 0;
    for (const hit of hits) {
      const { score, components } = hit;
      if (hit.source === "code") {
        const record = code.get(hit.id);
        if (record) items.push({ type: "code", score, components, code: record });
      } else if (hit.source === "turn") {
        const record = turns.get(hit.id);
        if (record && asOf !== undefined && Date.parse(record.started_at) > asOf) later++;
        else if (record) items.push({ type: "turn", score, components, turn: record });
      } else if (hit.source === "entity") {
        const entity = entities ? entities.get(hit.id) : this.text.entity(hit.id);
        if (entity && hasFacts(entity)) items.push({ type: "entity", score, components, entity });
      } else {
        const memory = memories.get(hit.id);
        if (!memory || memory.forgotten_at) continue;
        if (filters.valid_at && !validAt(memory, filters.valid_at)) continue;
        items.push({ type: "memory", score, components, memory });
      }
    }
    const notes = [...result.notes];
    if (this.rerank && items.length > 1) await this.#rerank(request.query, items, notes);
    if (filters.as_of) {
      notes.push(
        `as of ${filters.as_of}: memories as they were then, found by their words then and by ` +
          "the meaning of what they say now",
      );
      if (entities) {
        notes.push("the graph's entities as they were then, found by what they say now");
      }
      if (later > 0) notes.push(`${plural(later, "session turn")} from after then left out`);
    }
    // Marked a little past the cut, so that a memory replacing one in the answer comes into it,
    // ahead of it, even where it ranked below the cut.
    const window = items.slice(0, request.limit + REPLACEMENTS_PAST_CUT);
    // Words-only answers stay without the model; the others have it loaded already.
    if (!then && marking) await this.#markNewer(window);
    const answered = currentFirst(window).slice(0, request.limit);
    if (filters.as_of && answered.some((item) => item.type === "code")) {
      notes.push("code as it is indexed now: cairn keeps no earlier version of it");
    }
    return { query: request.query, items: answered, notes };
  }

  /**
   * Marks each memory item that a memory stored later may replace (see
   * `Memories.newerContradictions`): one batch of cached embeddings, a vector
   * search each, one graph read.
   */
  async #markNewer(items: RecallItem[]): Promise<void> {
    const memories = items.flatMap((item) => item.type === "memory" ? [item] : []);
    const newer = await this.memories.newerContradictions(memories.map((item) => item.memory));
    for (const item of memories) {
      const found = newer.get(item.memory.id);
      if (found) item.newer = found;
    }
  }

  /** Reorders the best `top` items by the cross-encoder's scores; on failure says so and keeps the fused order. */
  async #rerank(query: string, items: RecallItem[], notes: string[]): Promise<void> {
    const { reranker, top } = this.rerank!;
    const head = items.slice(0, top);
    let scores: number[];
    try {
      scores = await reranker.rerank(query, head.map(itemText));
    } catch (error) {
      notes.push(
        `reranking with ${reranker.id} failed (${
          (error as Error).message
        }); results are in fused order`,
      );
      return;
    }
    head.forEach((item, i) => (item.components.rerank = scores[i]!));
    head.sort((a, b) => (b.components.rerank ?? 0) - (a.components.rerank ?? 0));
    items.splice(0, head.length, ...head);
  }
}

/** The text a reranker reads for an item. */
function itemText(item: RecallItem): string {
  switch (item.type) {
    case "memory":
      return item.memory.content;
    case "code":
      return `${item.code.path} ${item.code.name}\n${item.code.text}`;
    case "turn":
      return item.turn.text;
    case "entity":
      return entityText(item.entity);
  }
}

/** How many results past the cut are looked at for memories that replace those in the answer. */
const REPLACEMENTS_PAST_CUT = 8;

/** Time filters on recall: what was known then, and what was valid then. */
export interface TimeFilters {
  as_of?: string;
  valid_at?: string;
}
