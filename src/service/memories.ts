import { z } from "zod";
import { MemoryKind } from "../../events/kinds/memory.ts";
import { entityCreated } from "../../events/kinds/graph.ts";
import type { NewEvent } from "../../events/schema.ts";
import { contentKey, type GraphProjection } from "../../projections/graph/graph_projection.ts";
import { type MemoryChange, MemoryHistory } from "../../projections/memory_history.ts";
import {
  heldExternalIds,
  listedMemoryIds,
  liveMemoryWithKey,
  memoriesById,
  memoriesWithExternalId,
  memoryById,
  memoryProjects,
} from "../../projections/graph/queries/memories.ts";
import { entityPage } from "../../projections/graph/queries/entities.ts";
import { compactStore } from "./compact.ts";
import { graphName } from "./graph_ops.ts";
import { purgeDurably } from "./pending_purge.ts";
import { checkValidity, isoDate } from "./dates.ts";
import { ArgumentsError, NotFoundError, UserError } from "../errors.ts";
import { newId } from "./ids.ts";
import { withoutUndefined } from "./objects.ts";
import { followed } from "./followed.ts";
import { memoriesThen } from "./memory_history.ts";
import {
  type Contradiction,
  type MemoryRecord,
  toMemory,
  validAt,
} from "../recall/memory_record.ts";
import {
  CONTRADICTION_COSINE,
  isConversation,
  type NearMemory,
  newerContradiction,
  sortOutNear,
} from "./near_memories.ts";
import type { Store } from "./store.ts";

/** Largest memory content accepted, in characters. */
export const MAX_MEMORY_CHARS = 64 * 1024;

/** What `remember` accepts. */
export const RememberInput = z.object({
  content: z.string().trim().min(1, "content is empty").max(MAX_MEMORY_CHARS),
  kind: MemoryKind.default("note"),
  tags: z.array(z.string().min(1)).default([]),
  project: z.string().min(1).nullable().default(null),
  entities: z.array(graphName).optional(),
  relations: z.array(z.object({ from: graphName, to: graphName, relation_type: graphName }))
    .optional(),
  source: z.string().optional(),
  external_id: z.string().optional(),
  valid_from: isoDate.optional(),
  valid_to: isoDate.optional(),
  occurred_at: isoDate.optional(),
  /** Store even if the same text is already known. */
  force: z.boolean().default(false),
});

/** What `revise` accepts: the id and the fields to change. */
export const ReviseInput = z.object({
  id: z.string().min(1),
  content: z.string().trim().min(1).max(MAX_MEMORY_CHARS).optional(),
  kind: MemoryKind.optional(),
  tags: z.array(z.string().min(1)).optional(),
  valid_from: isoDate.optional(),
  valid_to: isoDate.optional(),
});

/** What `list` accepts. */
export const ListInput = z.object({
  project: z.string().min(1).optional(),
  kind: MemoryKind.optional(),
  tag: z.string().min(1).optional(),
  include_forgotten: z.boolean().default(false),
  /** Only memories valid at this moment (their valid-from/valid-to range). */
  valid_at: isoDate.optional(),
  /** What was known at this past moment, as the log tells it. */
  as_of: isoDate.optional(),
  limit: z.number().int().min(1).max(50).default(20),
  offset: z.number().int().min(0).default(0),
});

/**
 * For each text, the memories nearest to it in meaning (near its project),
 * closest first. `waitForModel`: a model still loading is waited for a
 * moment (a memory being remembered), rather than passed over (an answer).
 */
export type NearestMemory = (
  texts: ReadonlyArray<{ content: string; project: string | null }>,
  options?: { waitForModel?: boolean },
) => Promise<Array<Array<{ id: string; cosine: number }>>>;

/**
 * The outcome of `remember`: the memory, whether it was already known, and
 * the stored memories a new one may contradict.
 */
export interface Remembered {
  memory: MemoryRecord;
  duplicate: boolean;
  contradictions: Contradiction[];
  /** An already known memory that one stored later may replace. */
  newer?: Contradiction;
}

/** Memories: the commands that append their events and the queries that read the graph. */
export class Memories {
  #history: () => Promise<MemoryHistory>;
  /** The remember under way, which the next waits for. */
  #remembering: Promise<unknown> = Promise.resolve();

  /**
   * @param nearest finds the stored memory whose embedding is closest to a text
   *   within a project, with its cosine similarity; absent when no model is loaded.
   * @param history the store's memory history; a store opened without one has one built in memory.
   */
  constructor(
    private readonly store: Store,
    private readonly graph: GraphProjection,
    private readonly nearest?: NearestMemory,
    history?: MemoryHistory,
  ) {
    this.#history = followed(store.log, history, MemoryHistory.inMemory);
  }

  /**
   * Stores a memory, or returns the existing one in the same project with the
   * same normalised text, or an embedding at cosine ≥ 0.98 stating the same
   * numbers, names and negation (unless `force`). A stored one comes with the
   * memories of its project it may contradict (see {@linkcode sortOutNear}).
   */
  async remember(input: z.input<typeof RememberInput>): Promise<Remembered> {
    const data = RememberInput.parse(input);
    checkValidity(data);
    // One at a time: two calls sent together (an agent's parallel tool calls) would each miss
    // the other in their checks, and store the same text twice.
    const remembered = this.#remembering.then(() => this.#remember(data));
    this.#remembering = remembered.catch(() => {});
    return await remembered;
  }

  async #remember(data: z.output<typeof RememberInput>): Promise<Remembered> {
    // The text is embedded while the graph looks for the same text: the two use different cores,
    // and the embedding is needed unless the text is known already.
    const near = this.#near([{ content: data.content, project: data.project }], true);
    near.catch(() => {});
    const known = data.force ? undefined : await this.#sameText(data.content, data.project);
    if (known) return await this.#known(known);
    const { same, contradictions } = sortOutNear(data.content, (await near)[0]!);
    if (same && !data.force) return await this.#known(same);
    const { force: _force, ...fields } = data;
    const id = newId("mem");
    await this.store.append([{
      type: "memory.remembered",
      v: 1,
      data: { ...withoutUndefined(fields), id },
    }]);
    return { memory: await this.#require(id), duplicate: false, contradictions };
  }

  /**
   * Stores many memory records at once (one group commit). A record whose
   * `external_id` its project already holds (imported before, even if
   * forgotten since) is skipped, so importing a file again adds only what is
   * new. Resolves to how many were stored and how many skipped.
   */
  async importMany(
    inputs: Array<z.input<typeof RememberInput>>,
  ): Promise<{ imported: number; skipped: number }> {
    const records = inputs.map((input) => RememberInput.parse(input));
    records.forEach(checkValidity);
    const known = await this.#knownExternalIds(records.flatMap((r) => r.external_id ?? []));
    const events: NewEvent[] = [];
    for (const { force: _force, ...fields } of records) {
      if (fields.external_id !== undefined) {
        const key = `${fields.project ?? ""}\0${fields.external_id}`;
        if (known.has(key)) continue;
        known.add(key);
      }
      events.push({
        type: "memory.remembered",
        v: 1,
        data: { ...withoutUndefined(fields), id: newId("mem") },
      });
    }
    await this.store.append(events);
    return { imported: events.length, skipped: records.length - events.length };
  }

  /** The `project\0external id` pairs already stored among `ids`. */
  async #knownExternalIds(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const held = await heldExternalIds(this.graph.database, [...new Set(ids)]);
    return new Set(held.map((row) => `${row.project}\0${row.id}`));
  }

  /**
   * Changes a memory; the earlier version stays in the log. Fields given as
   * they already are change nothing, and when none changes nothing is
   * written (`changed` false).
   */
  async revise(
    input: z.input<typeof ReviseInput>,
  ): Promise<{ memory: MemoryRecord; changed: boolean; sameAs?: MemoryRecord }> {
    const { id, ...changes } = ReviseInput.parse(input);
    const current = await this.#require(id);
    if (current.forgotten_at) {
      throw new UserError(`memory ${id} is forgotten; remember it again instead`);
    }
    if (Object.values(changes).every((value) => value === undefined)) {
      throw new UserError("nothing to revise: give content, kind, tags, valid_from or valid_to");
    }
    checkValidity({
      valid_from: changes.valid_from ?? current.valid_from,
      valid_to: changes.valid_to ?? current.valid_to,
    });
    const changed = withoutUndefined(changes);
    for (const [field, value] of Object.entries(changed)) {
      const now = current[field as keyof MemoryRecord];
      if (JSON.stringify(now) === JSON.stringify(value)) {
        delete changed[field as keyof typeof changed];
      }
    }
    if (Object.keys(changed).length === 0) return { memory: current, changed: false };
    // Revised to the text another memory of its project holds: the answer says so (remember
    // would have returned that one).
    const same = changed.content === undefined
      ? undefined
      : await this.#sameText(changed.content, current.project);
    await this.store.append([{ type: "memory.revised", v: 1, data: { id, ...changed } }]);
    const memory = await this.#require(id);
    return same && same.id !== id
      ? { memory, changed: true, sameAs: same }
      : { memory, changed: true };
  }

  /**
   * Forgets a memory (it stays in the log). With `purge`, its content leaves
   * the log too: the memory's events are removed by a compaction.
   */
  async forget(
    id: string,
    options: { reason?: string; purge?: boolean } = {},
  ): Promise<{ forgottenBefore?: string }> {
    const current = await this.#require(id);
    const before = current.forgotten_at ? { forgottenBefore: current.forgotten_at } : {};
    const events: NewEvent[] = [];
    if (!current.forgotten_at) {
      events.push({
        type: "memory.forgotten",
        v: 1,
        data: { id, ...(options.reason ? { reason: options.reason } : {}) },
      });
    }
    if (!options.purge) {
      if (events.length) await this.store.append(events);
      return before;
    }
    events.push(...await this.#entitiesOutliving(id), {
      type: "memory.purged",
      v: 1,
      data: { id },
    });
    await purgeDurably(this.store, async () => {
      await this.store.append(events);
      await compactStore(this.store);
    });
    return before;
  }

  /**
   * One memory by id, or by the id it was imported with (`external_id`) when
   * no memory has that id and one imported memory has it; undefined when none.
   *
   * @throws {ArgumentsError} when memories of several projects were imported with that id
   */
  async get(id: string, options: { as_of?: string } = {}): Promise<MemoryRecord | undefined> {
    if (options.as_of) return (await this.history(options.as_of)).get(id);
    const row = await memoryById(this.graph.database, id);
    if (row) return toMemory(row);
    const imported = (await memoriesWithExternalId(this.graph.database, id)).map(toMemory);
    if (imported.length > 1) {
      throw new ArgumentsError(
        `${id} is the imported id of ${imported.length} memories: ${
          imported.map((m) => `${m.id} (${m.project ? `project ${m.project}` : "global"})`)
            .join(", ")
        }; give one of their ids`,
      );
    }
    return imported[0];
  }

  /** Every memory as it was at `asOf` (forgotten ones marked), from the memory history. */
  async history(asOf: string): Promise<Map<string, MemoryRecord>> {
    return memoriesThen(await this.#history(), asOf);
  }

  /** Every change of memory `id`, oldest first, from the memory history (none for an unknown one). */
  async changes(id: string): Promise<readonly MemoryChange[]> {
    return (await this.#history()).changesOf(id);
  }

  /** Several memories by id, in no particular order; unknown ids are skipped. */
  async getMany(ids: readonly string[]): Promise<MemoryRecord[]> {
    if (ids.length === 0) return [];
    return (await memoriesById(this.graph.database, ids)).map(toMemory);
  }

  /** Memories matching the filters, newest first. */
  async list(input: z.input<typeof ListInput> = {}): Promise<MemoryRecord[]> {
    const filter = ListInput.parse(input);
    if (filter.as_of) {
      const then = [...(await this.history(filter.as_of)).values()].reverse().filter((m) =>
        (!filter.project || m.project === filter.project || m.project === null) &&
        (!filter.kind || m.kind === filter.kind) &&
        (!filter.tag || m.tags.includes(filter.tag)) &&
        (filter.include_forgotten || !m.forgotten_at) &&
        (!filter.valid_at || validAt(m, filter.valid_at))
      );
      return then.slice(filter.offset, filter.offset + filter.limit);
    }
    const page = await listedMemoryIds(
      this.graph.database,
      {
        project: filter.project,
        kind: filter.kind,
        tag: filter.tag,
        includeForgotten: filter.include_forgotten,
        validAt: filter.valid_at,
      },
      filter.offset,
      filter.limit,
    );
    const byId = new Map((await this.getMany(page)).map((memory) => [memory.id, memory]));
    return page.flatMap((id) => byId.get(id) ?? []);
  }

  /**
   * `entity.created` events for the entities the memory `id` made (named, or
   * the ends of its relations) that have observations of their own now: a
   * purge drops the memory's events, and with them what made those entities,
   * so that their observations, added later, would go too. Made again after
   * the purge with what they hold, they keep them.
   */
  async #entitiesOutliving(id: string): Promise<NewEvent[]> {
    for await (const event of this.store.log.read(1)) {
      if (event.type !== "memory.remembered" || event.data.id !== id) continue;
      const { entities = [], relations = [], project } = event.data;
      const names = [...new Set([...entities, ...relations.flatMap((r) => [r.from, r.to])])];
      if (names.length === 0) return [];
      const made = await entityPage(this.graph.database, names, 0, names.length);
      return made.filter((entity) => entity.observations.length > 0)
        .map((entity) => entityCreated(entity, project));
    }
    return [];
  }

  /** The projects that hold live memories, by name. */
  projects(): Promise<string[]> {
    return memoryProjects(this.graph.database);
  }

  async #require(id: string): Promise<MemoryRecord> {
    const memory = await this.get(id);
    if (!memory) {
      throw new NotFoundError(`no memory with id ${id}; list the memories to find the right id`);
    }
    return memory;
  }

  /** The answer for a memory already known: it, and one stored later that may replace it. */
  async #known(memory: MemoryRecord): Promise<Remembered> {
    const newer = (await this.newerContradictions([memory])).get(memory.id);
    return { memory, duplicate: true, contradictions: [], ...(newer ? { newer } : {}) };
  }

  /**
   * For each of `memories`, the newest live memory of its project that may
   * replace it (stored later, close in meaning, a number, name or negation of
   * it replaced), so an answer can say that it may be out of date. Memories
   * none replaces, or all of them when no model is at hand, are left out.
   */
  async newerContradictions(
    memories: readonly MemoryRecord[],
  ): Promise<Map<string, Contradiction>> {
    // Conversation turns record what was said: none replaces another, so none is looked at.
    const facts = memories.filter((memory) => !isConversation(memory));
    const near = await this.#near(facts);
    const found = new Map<string, Contradiction>();
    facts.forEach((memory, i) => {
      const newer = newerContradiction(memory, near[i]!);
      if (newer) found.set(memory.id, newer);
    });
    return found;
  }

  /**
   * For each text, the other live memories of its project close enough in
   * meaning to state the same fact ({@linkcode CONTRADICTION_COSINE} or
   * closer), with their cosines; a text of a stored memory gives its `id`.
   */
  async #near(
    texts: ReadonlyArray<{ content: string; project: string | null; id?: string }>,
    waitForModel = false,
  ): Promise<NearMemory[][]> {
    if (texts.length === 0) return [];
    const nearest = (await this.nearest?.(texts, { waitForModel }) ?? texts.map(() => []))
      .map((list, i) =>
        list.filter((n) => n.cosine >= CONTRADICTION_COSINE && n.id !== texts[i]!.id)
      );
    const ids = [...new Set(nearest.flat().map((n) => n.id))];
    const byId = new Map((await this.getMany(ids)).map((m) => [m.id, m]));
    return nearest.map((list, i) =>
      list.flatMap(({ id, cosine }) => {
        const memory = byId.get(id);
        return memory && memory.project === texts[i]!.project && !memory.forgotten_at
          ? [{ memory, cosine }]
          : [];
      })
    );
  }

  async #sameText(content: string, project: string | null): Promise<MemoryRecord | undefined> {
    const row = await liveMemoryWithKey(
      this.graph.database,
      await contentKey(content),
      project ?? "",
    );
    return row ? toMemory(row) : undefined;
  }
}
