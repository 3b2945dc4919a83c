import type { KuzuDb } from "../../projections/graph/kuzu.ts";
import {
  CODE_WEIGHTS,
  DEFAULT_WEIGHTS,
  MEMORY_WEIGHTS,
  type Signal,
  type SignalWeights,
} from "./fuse.ts";
import {
  byScore,
  fuseAcrossSources,
  type SourceEvidence,
  type SourceFused,
} from "./fuse_sources.ts";
import { type CodeFiles, neighbourhood, type Seeds } from "./graph_neighbourhood.ts";
import { personalizedPageRank } from "./ppr.ts";
import { sessionPipeline, TURN_DISTANCE_THRESHOLD } from "./session_files.ts";
import { LOWERED_FILE_PRIOR, type LoweredKind, loweredKinds } from "./path_priors.ts";
import { namesSymbol, symbolOf } from "./symbol_query.ts";
import { codeMentions, type Definition, mentionedDefinitions } from "./code_mentions.ts";
import type {
  HitComponents,
  LexicalSearch,
  RankedHit,
  RecallRequest,
  RecallResult,
  Source,
  VectorSearch,
} from "./types.ts";
import { isModelFailure } from "../embed/embedder.ts";
import { lagText, lagWithin, type VectorLag, waitingCount } from "./vector_lag.ts";

/** Longest query accepted, in characters. */
export const MAX_QUERY_CHARS = 65_536;

/** Hard cap on results per call. */
export const MAX_RESULTS = 50;
/**
 * Results when a call does not say: eight fit a markdown answer of about 500
 * tokens with their answering text (`deno task bench mixed`).
 */
export const DEFAULT_RESULTS = 8;
/** How many candidates each list contributes before fusion. */
const CANDIDATES = 50;
/** How many of the best whole files lend their rank to their chunks. */
const CONTEXT_FILES = 10;
/** How many of the best fused hits seed the graph walk, per source asked. */
const SEEDS = 8;
/** The signals whose fusion picks the graph walk's seeds. */
const SEED_SIGNALS: ReadonlySet<Signal> = new Set(["vector", "lexical", "context"]);
/** How many times more candidates are fetched when a filter (language, path) drops some. */
const FILTER_OVERFETCH = 4;

/** What recall reads from. `vectors` and `embedQuery` are absent while no model is loaded. */
export interface RecallDeps {
  graph: KuzuDb;
  lexical: LexicalSearch;
  vectors?: VectorSearch;
  embedQuery?: (query: string) => Promise<Float32Array>;
  /**
   * False while the embedding model is still loading and recall should not
   * wait long for it (a server waits 2 s, then answers by words meanwhile);
   * absent: always wait.
   */
  modelReady?: () => boolean;
  /** The language of a code chunk (for the `language` filter). */
  languageOf?: (chunkId: string) => string | undefined;
  /** The path of a code chunk relative to its project's root (for the `pathPrefix` filter). */
  codePath?: (chunkId: string) => string | undefined;
  /** The qualified name of a code chunk (to put a named symbol's definition first). */
  codeName?: (chunkId: string) => string | undefined;
  /** Documents still waiting for their vectors, and how fast they are being embedded. */
  vectorLag?: () => Promise<VectorLag>;
  /** Which file holds which chunk, so the graph walk needs no query for it. */
  codeFiles?: CodeFiles;
  /** The code chunks whose qualified name ends in the part `name`, in `project` (all if null). */
  definitionsNamed?: (name: string, project: string | null) => Definition[];
}

interface Lists {
  vector: string[];
  lexical: string[];
  context: Array<{ ids: string[]; share: number }>;
  graph: string[];
  mention: string[][];
  distance: Map<string, number>;
  lexicalScore: Map<string, number>;
  lexicalShare: Map<string, number>;
  contextScore: Map<string, number>;
  ppr: Map<string, number>;
}

/**
 * Hybrid recall: vector, lexical, context, mention and graph candidates
 * (personalized PageRank from the best hits) of every source are fused with
 * weighted RRF in lists that rank all sources together by their evidence
 * (see fuse_sources.ts), so one order holds across memories, code and turns.
 */
export async function recall(deps: RecallDeps, request: RecallRequest): Promise<RecallResult> {
  const notes: string[] = [];
  const limit = Math.min(request.limit, MAX_RESULTS);
  if (request.limit > MAX_RESULTS) notes.push(`limit capped at ${MAX_RESULTS}`);
  const weights: SignalWeights = { ...DEFAULT_WEIGHTS, ...request.weights };
  const fetch = request.language === undefined && request.pathPrefix === undefined
    ? 1
    : FILTER_OVERFETCH;
  // The asking session's own turns are the closest to its question and are left out: fetch more.
  const turnFetch = request.session === undefined ? fetch : FILTER_OVERFETCH;
  // The query is embedded (another thread) and the session context read while the words are searched.
  const [queryVector, sessions, lexicalHits] = await Promise.all([
    request.mode !== "lexical" ? embedOrSayWhy(deps, request, notes) : undefined,
    request.sources.includes("turn") ? sessionPipeline(deps.graph, request) : undefined,
    Promise.resolve().then(() =>
      request.mode === "vector" ? [] : deps.lexical.search(request.query, {
        sources: request.sources,
        project: request.project ?? null,
        limit: CANDIDATES * request.sources.length * turnFetch,
      })
    ),
  ]);
  const lag = deps.vectorLag && queryVector
    ? lagWithin(await deps.vectorLag(), request.sources, request.project ?? null)
    : undefined;
  if (lag && waitingCount(lag) > 0) {
    notes.push(
      `semantic search is catching up: ${lagText(lag)} ${
        waitingCount(lag) === 1 ? "has" : "have"
      } no vector yet; ` +
        "words and the graph find them already",
    );
  }

  const keep = (source: Source, id: string) =>
    source === "turn" ? sessions?.inContext(id) !== true : source !== "code" ||
      ((request.language === undefined || deps.languageOf?.(id) === request.language) &&
        (request.pathPrefix === undefined || under(deps.codePath?.(id), request.pathPrefix)));
  const lists = new Map<Source, Lists>();
  for (const source of request.sources) {
    const entry: Lists = {
      vector: [],
      lexical: [],
      context: [],
      graph: [],
      mention: [],
      distance: new Map(),
      lexicalScore: new Map(),
      lexicalShare: new Map(),
      contextScore: new Map(),
      ppr: new Map(),
    };
    if (queryVector && deps.vectors) {
      for (
        const hit of deps.vectors.search(source, queryVector, {
          project: request.project ?? null,
          limit: CANDIDATES * (source === "turn" ? turnFetch : fetch),
        })
      ) {
        const id = hit.id.slice(source.length + 1);
        // Turns have their own threshold (the file-aware pipeline below).
        if (source !== "turn" && hit.distance > TURN_DISTANCE_THRESHOLD) break;
        if (!keep(source, id) || entry.vector.length >= CANDIDATES) continue;
        entry.vector.push(id);
        entry.distance.set(id, hit.distance);
      }
    }
    if (source === "turn" && sessions && request.mode !== "lexical") {
      const list = sessions.vectorList(
        entry.vector.map((id) => ({ id, distance: entry.distance.get(id)! })),
      );
      entry.vector = list.map((hit) => hit.id);
      entry.distance = new Map(list.map((hit) => [hit.id, hit.distance]));
    }
    for (const hit of lexicalHits) {
      if (hit.source !== source || entry.lexical.length >= CANDIDATES) continue;
      if (!keep(source, hit.id)) continue;
      entry.lexical.push(hit.id);
      entry.lexicalScore.set(hit.id, hit.score);
      entry.lexicalShare.set(hit.id, hit.share);
    }
    if (request.mode !== "vector") {
      // A file lifts the chunks the other lists found in it; it does not flood
      // the answer with every chunk it holds.
      const found = new Set([...entry.vector, ...entry.lexical]);
      for (
        const hit of deps.lexical.searchContext(request.query, {
          source,
          project: request.project ?? null,
          limit: source === "code" ? CONTEXT_FILES * fetch : CANDIDATES,
        })
      ) {
        const ids = hit.ids.filter((id) => source === "code" ? found.has(id) : keep(source, id));
        if (ids.length === 0) continue;
        entry.context.push({ ids, share: hit.share });
        for (const id of ids) entry.contextScore.set(id, hit.score);
      }
    }
    if (source === "code" && request.mode === "hybrid" && deps.definitionsNamed) {
      const named = (name: string) => deps.definitionsNamed!(name, request.project ?? null);
      entry.mention = mentionedDefinitions(codeMentions(request.query), named)
        .map((ids) => ids.filter((id) => keep(source, id)))
        .filter((ids) => ids.length > 0);
    }
    lists.set(source, entry);
  }

  const weightsFor = (source: Source) => weightsOf(source, request);
  if (request.mode === "hybrid" && weights.graph > 0) {
    await addGraphLists(deps, lists, evidenceOf(lists), weightsFor);
    for (const [source, entry] of lists) {
      entry.graph = entry.graph.filter((id) => keep(source, id));
    }
  }

  const lowerKinds = loweredKinds(request.query);
  const symbol = symbolOf(request.query);
  let fused = fuseAcrossSources(evidenceOf(lists), SIGNALS[request.mode], weightsFor);
  const lowered = new Map<string, string>();
  if (lists.has("code") && lowerKinds.length > 0) {
    fused = lowerFiles(fused, lowerKinds, deps.codePath, lowered);
  }
  const named = new Set<string>();
  if (lists.has("code") && symbol !== undefined && deps.codeName) {
    fused = definitionsFirst(fused, symbol, deps.codeName, named);
  }
  const ranked = fused.map((f): RankedHit => {
    const entry = lists.get(f.source)!;
    const components: HitComponents = { fused: f.score };
    const kind = f.source === "code" ? lowered.get(f.id) : undefined;
    if (kind) components.prior = { kind, factor: LOWERED_FILE_PRIOR };
    if (f.source === "code" && named.has(f.id)) components.namesSymbol = true;
    if (f.ranks.vector) {
      components.vector = { rank: f.ranks.vector, distance: entry.distance.get(f.id)! };
    }
    if (f.ranks.lexical) {
      components.lexical = { rank: f.ranks.lexical, score: entry.lexicalScore.get(f.id)! };
    }
    if (f.ranks.context) {
      components.context = { rank: f.ranks.context, score: entry.contextScore.get(f.id)! };
    }
    if (f.ranks.graph) components.graph = { rank: f.ranks.graph, ppr: entry.ppr.get(f.id)! };
    if (f.ranks.mention) components.mention = { rank: f.ranks.mention };
    return { source: f.source, id: f.id, score: f.score, components };
  });
  return { hits: onePartPerDefinition(ranked, deps).slice(0, limit), notes };
}

/**
 * Multiplies the fused score of chunks in files of the `kinds` the query does
 * not ask for (tests, changelogs) by LOWERED_FILE_PRIOR, records which kind
 * each lowered chunk was in `lowered`, and re-sorts.
 */
function lowerFiles(
  fused: SourceFused[],
  kinds: readonly LoweredKind[],
  pathOf: ((chunkId: string) => string | undefined) | undefined,
  lowered: Map<string, string>,
): SourceFused[] {
  const scored = fused.map((f) => {
    const path = f.source === "code" ? pathOf?.(f.id) : undefined;
    const kind = path === undefined ? undefined : kinds.find((k) => k.matches(path));
    if (!kind) return f;
    lowered.set(f.id, kind.label);
    return { ...f, score: f.score * LOWERED_FILE_PRIOR };
  });
  return scored.sort(byScore);
}

/**
 * Puts the chunks whose qualified name is the queried symbol (or ends with it)
 * before every other result, keeping the fused order within each group, and
 * records them in `named`; the best fused score is added to theirs, so their
 * scores say so too.
 */
function definitionsFirst(
  fused: SourceFused[],
  symbol: string,
  nameOf: (chunkId: string) => string | undefined,
  named: Set<string>,
): SourceFused[] {
  const defines = (f: SourceFused) => {
    if (f.source !== "code") return false;
    const name = nameOf(f.id);
    return name !== undefined && namesSymbol(name, symbol);
  };
  const definitions = fused.filter(defines);
  if (definitions.length === 0) return fused;
  const top = fused[0]!.score;
  for (const f of definitions) named.add(f.id);
  return [
    ...definitions.map((f) => ({ ...f, score: top + f.score })),
    ...fused.filter((f) => !defines(f)),
  ];
}

/**
 * Keeps the best part of each code definition: a large function is indexed
 * in several overlapping parts under one name, and listing each would spend
 * the answer's places (and the agent's tokens) on one function.
 */
function onePartPerDefinition(ranked: RankedHit[], deps: RecallDeps): RankedHit[] {
  const seen = new Set<string>();
  return ranked.filter((hit) => {
    if (hit.source !== "code") return true;
    const file = deps.codeFiles?.fileOf(hit.id);
    const name = deps.codeName?.(hit.id);
    if (file === undefined || name === undefined) return true;
    const definition = `${file}\0${name}`;
    if (seen.has(definition)) return false;
    seen.add(definition);
    return true;
  });
}

/** Whether `path` is the file `prefix` or lies in the folder `prefix`. */
function under(path: string | undefined, prefix: string): boolean {
  const folder = prefix.replace(/\/+$/, "");
  return path !== undefined && (folder === "" || path === folder || path.startsWith(`${folder}/`));
}

/** What each source's lists found, with the evidence that ranks it across sources. */
function evidenceOf(lists: ReadonlyMap<Source, Lists>): Map<Source, SourceEvidence> {
  return new Map([...lists].map(([source, entry]) => [source, {
    vector: entry.vector.map((id) => [id, entry.distance.get(id)!] as const),
    lexical: entry.lexical.map((id) => [id, entry.lexicalShare.get(id)!] as const),
    context: entry.context,
    graph: entry.graph.map((id) => [id, entry.ppr.get(id)!] as const),
    mention: entry.mention,
  }]));
}

/**
 * The graph list of each source: personalized PageRank seeded by the best
 * hits of all sources, fused across sources (memories, code and turns seed
 * one walk, so a memory can lift the code it names and a turn the files it
 * touched; a source with weak evidence seeds little, so its own hits do not
 * come back on top of the walk).
 */
async function addGraphLists(
  deps: RecallDeps,
  lists: Map<Source, Lists>,
  evidence: ReadonlyMap<Source, SourceEvidence>,
  weightsFor: (source: Source) => SignalWeights,
): Promise<void> {
  const best = fuseAcrossSources(evidence, SEED_SIGNALS, weightsFor).slice(0, SEEDS * lists.size);
  const seeds = new Map(best.map((f) => [`${f.source}:${f.id}`, f.score]));
  const seedIds: Seeds = Object.fromEntries(
    [...lists.keys()].map((
      source,
    ) => [source, best.filter((f) => f.source === source).map((f) => f.id)]),
  );
  if (seeds.size === 0) return;
  const edges = await neighbourhood(deps.graph, seedIds, [...lists.keys()], deps.codeFiles);
  if (edges.length === 0) return;
  const rank = [...personalizedPageRank(edges, seeds)].sort((a, b) => b[1] - a[1]);
  for (const [source, entry] of lists) {
    const prefix = `${source}:`;
    for (
      const [node, score] of rank.filter(([node]) => node.startsWith(prefix)).slice(0, CANDIDATES)
    ) {
      const id = node.slice(prefix.length);
      entry.graph.push(id);
      entry.ppr.set(id, score);
    }
  }
}

/** The signals each mode fuses. */
const SIGNALS: Record<RecallRequest["mode"], ReadonlySet<Signal>> = {
  hybrid: new Set(["vector", "lexical", "context", "graph", "mention"]),
  vector: new Set(["vector"]),
  lexical: new Set(["lexical", "context"]),
};

/** How long recall waits for a model still loading before it answers by words alone. */
const MODEL_WAIT_MS = 2_000;

/**
 * The query's vector, or undefined with a note saying why recall answers by
 * words only: no model, a model still loading (when recall is not to wait),
 * or one that cannot be loaded or reached.
 */
async function embedOrSayWhy(
  deps: RecallDeps,
  { query, mode }: RecallRequest,
  notes: string[],
): Promise<Float32Array | undefined> {
  const wordsOnly = (why: string) => {
    const rest = mode === "vector" ? "" : "; lexical results only";
    notes.push(`semantic search is not ready (${why})${rest}`);
    return undefined;
  };
  if (!deps.vectors || !deps.embedQuery) return wordsOnly("no embedding model loaded");
  if (deps.modelReady?.() === false) {
    // A model that loads within a moment (an owner just started) is worth the wait.
    const embedding = deps.embedQuery(query);
    embedding.catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const vector = await Promise.race([
      embedding.catch(() => undefined),
      new Promise<undefined>((
        resolve,
      ) => (timer = setTimeout(() => resolve(undefined), MODEL_WAIT_MS))),
    ]).finally(() => clearTimeout(timer));
    return vector ?? wordsOnly("the embedding model is still loading");
  }
  try {
    return await deps.embedQuery(query);
  } catch (error) {
    if (!isModelFailure(error)) throw error;
    return wordsOnly(`the embedding model cannot be used: ${error.message}`);
  }
}

/** The fusion weights of `source`: its own defaults, then what the request sets for every source. */
function weightsOf(source: Source, request: RecallRequest): SignalWeights {
  return {
    ...DEFAULT_WEIGHTS,
    ...(source === "memory" ? MEMORY_WEIGHTS : source === "code" ? CODE_WEIGHTS : {}),
    ...request.weights,
  };
}
