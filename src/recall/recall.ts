/**
 * Recall: the retrievers of every signal asked together, their lists fused
 * across sources, the ranking's rules applied (see {@linkcode recallWith}).
 * @module
 */
import type { KuzuDb } from "../../projections/graph/kuzu.ts";
import { referencesTo } from "../../projections/graph/queries/code.ts";
import type { Signal } from "./fuse.ts";
import {
  byScore,
  evidenceIds,
  evidenceOf,
  fuseAcrossSources,
  type SourceEvidence,
  type SourceFused,
  withoutChunks,
} from "./fuse_sources.ts";
import { LOWERED_FILE_PRIOR, type LoweredKindName } from "./path_priors.ts";
import { namesSymbol, symbolOf } from "./symbol_query.ts";
import { visibleQuery } from "./visible_query.ts";
import { askOf, type RankingDeps } from "./ask.ts";
import { type Ask, type Candidates, retrieveAll, type Retriever } from "./retriever.ts";
import { contextRetriever } from "./retrievers/context_retriever.ts";
import { fileVectorRetriever } from "./retrievers/file_vector_retriever.ts";
import { graphRetriever } from "./retrievers/graph_retriever.ts";
import { lexicalRetriever } from "./retrievers/lexical_retriever.ts";
import { type DefinitionsNamed, mentionRetriever } from "./retrievers/mention_retriever.ts";
import { vectorRetriever } from "./retrievers/vector_retriever.ts";
import type {
  HitComponents,
  LexicalSearch,
  RankedHit,
  RecallRequest,
  RecallResult,
  Source,
  VectorSearch,
} from "./types.ts";
import { plural } from "./vector_lag.ts";

/** Longest query accepted, in characters. */
export const MAX_QUERY_CHARS = 65_536;

/** Hard cap on results per call. */
export const MAX_RESULTS = 50;
/**
 * Results when a call does not say: eight fit a markdown answer of about 500
 * tokens with their answering text (`deno task bench mixed`).
 */
export const DEFAULT_RESULTS = 8;
/** What recall reads from. `vectors` and `embedQuery` are absent while no model is loaded. */
export interface RecallDeps extends RankingDeps {
  graph: KuzuDb;
  lexical: LexicalSearch;
  vectors?: VectorSearch;
  definitionsNamed?: DefinitionsNamed;
}

/** The retrievers of every signal over a store's projections. */
export function retrieversOf(deps: RecallDeps): Retriever[] {
  return [
    vectorRetriever(deps),
    lexicalRetriever(deps.lexical),
    contextRetriever(deps.lexical),
    ...(deps.definitionsNamed
      ? [mentionRetriever(
        deps.definitionsNamed,
        (definitions, limit) => referencesTo(deps.graph, definitions, limit),
      )]
      : []),
    graphRetriever(deps.graph, deps.codeFiles),
    ...(deps.vectors ? [fileVectorRetriever(deps.vectors)] : []),
  ];
}

/**
 * Hybrid recall over a store: vector, lexical, context, mention, graph and file
 * candidates (personalized PageRank from the best hits) of every source are
 * fused with weighted RRF in lists that rank all sources together by their
 * evidence (see fuse_sources.ts), so one order holds across memories, code and turns.
 * `retrievers` are the store's own unless given (tuning reuses their answers).
 */
export function recall(
  deps: RecallDeps,
  request: RecallRequest,
  retrievers: readonly Retriever[] = retrieversOf(deps),
): Promise<RecallResult> {
  const { embedQuery, ...rest } = deps;
  // Without a vector index there is nothing to search by meaning.
  const ranking = deps.vectors && embedQuery ? deps : rest;
  return recallWith(retrievers, ranking, request);
}

/**
 * Recall with `retrievers`: runs them on what the query shows (its HTML
 * comments out; the query is embedded while the words are searched), fuses
 * their lists across sources, applies the ranking's rules (files the query
 * does not ask for lowered, a named symbol's definition first, one part per
 * definition) and keeps the best `limit`.
 */
export async function recallWith(
  retrievers: readonly Retriever[],
  deps: RankingDeps,
  asked: RecallRequest,
): Promise<RecallResult> {
  const request = { ...asked, query: visibleQuery(asked.query) };
  const notes: string[] = [];
  const note = (text: string) => void notes.push(text);
  const limit = Math.min(request.limit, MAX_RESULTS);
  if (request.limit > MAX_RESULTS) note(`limit capped at ${MAX_RESULTS}`);
  if (request.query !== asked.query) note("the query's HTML comments were not searched");
  const ask = await askOf(deps, request, note);
  const found = await retrieveAll(retrievers, ask);
  await ask.vectors;

  const codeAsked = request.sources.includes("code");
  const symbol = symbolOf(request.query);
  const evidence = evidenceOf(found, request.sources);
  const fuse = (of: ReadonlyMap<Source, SourceEvidence>) =>
    fuseAcrossSources(of, MODE_SIGNALS[request.mode], ask.weightsOf);
  const lowered = codeAsked
    ? loweredChunks(evidence.get("code"), ask, request.lowerFactors ?? {})
    : new Map<string, { kind: string; factor: number }>();
  let fused = lowered.size === 0 ? fuse(evidence) : lowerFiles(evidence, lowered, fuse);
  const named = new Set<string>();
  if (codeAsked && symbol !== undefined && deps.codeName) {
    fused = definitionsFirst(fused, symbol, deps.codeName, named);
  }
  const scoreOf = rawScores(found);
  const ranked = fused.map((f): RankedHit => {
    const raw = (signal: Signal) => scoreOf(signal, f.source, f.id);
    const components: HitComponents = { fused: f.score };
    const prior = f.source === "code" ? lowered.get(f.id) : undefined;
    if (prior) components.prior = prior;
    if (f.source === "code" && named.has(f.id)) components.namesSymbol = true;
    if (f.ranks.vector) components.vector = { rank: f.ranks.vector, distance: raw("vector") };
    if (f.ranks.lexical) components.lexical = { rank: f.ranks.lexical, score: raw("lexical") };
    if (f.ranks.context) components.context = { rank: f.ranks.context, score: raw("context") };
    if (f.ranks.graph) components.graph = { rank: f.ranks.graph, ppr: raw("graph") };
    if (f.ranks.mention) components.mention = { rank: f.ranks.mention };
    if (f.ranks.file) components.file = { rank: f.ranks.file, distance: raw("file") };
    return { source: f.source, id: f.id, score: f.score, components };
  });
  const hits = onePartPerDefinition(ranked, deps).slice(0, limit);
  if (ask.sessions?.note) note(ask.sessions.note);
  const inContext = ask.leftInContext.size;
  if (hits.length === 0 && inContext > 0) {
    note(
      `${plural(inContext, "turn")} of this session matched and ` +
        `${inContext === 1 ? "was" : "were"} left out: still in your context`,
    );
  }
  return { hits, notes };
}

/** Each signal's own score of a document: of the first entry of its list that holds it. */
function rawScores(
  found: ReadonlyMap<Signal, Candidates>,
): (signal: Signal, source: Source, id: string) => number {
  const scores = new Map<string, number>();
  for (const [signal, lists] of found) {
    for (const [source, list] of lists) {
      for (const candidate of list) {
        for (const id of candidate.ids) {
          const key = `${signal}\0${source}\0${id}`;
          if (!scores.has(key)) scores.set(key, candidate.score);
        }
      }
    }
  }
  return (signal, source, id) => scores.get(`${signal}\0${source}\0${id}`)!;
}

/**
 * How much nearer in meaning than every other code chunk a chunk of a kind
 * the query does not ask for must be to keep its score: the README section a
 * usage question is about is far ahead of any code, a test that shares an
 * issue's words is not (docs/decisions.md).
 */
export const CLEARLY_NEARER = 0.1;

/**
 * The code chunks of `evidence` in files of kinds the request does not ask
 * for (tests, changelogs, documentation, tooling, examples; a file of several
 * kinds is kept when any is asked), each with its first kind's label and
 * factor (of `factors`, else LOWERED_FILE_PRIOR; 1 leaves a kind alone). One
 * {@linkcode CLEARLY_NEARER} in meaning than all the rest is not lowered.
 */
function loweredChunks(
  evidence: SourceEvidence | undefined,
  ask: Pick<Ask, "kindsOf" | "asked">,
  factors: Partial<Record<LoweredKindName, number>>,
): Map<string, { kind: string; factor: number }> {
  const lowered = new Map<string, { kind: string; factor: number }>();
  if (!evidence) return lowered;
  for (const id of evidenceIds(evidence)) {
    const kinds = ask.kindsOf("code", id);
    if (kinds.length === 0 || kinds.some((kind) => ask.asked.has(kind.name))) continue;
    const factor = factors[kinds[0]!.name] ?? LOWERED_FILE_PRIOR;
    if (factor !== 1) lowered.set(id, { kind: kinds[0]!.label, factor });
  }
  const others = evidence.vector.filter(([id]) => !lowered.has(id)).map(([, distance]) => distance);
  const nearest = Math.min(...others);
  for (const [id, distance] of evidence.vector) {
    if (distance <= nearest - CLEARLY_NEARER) lowered.delete(id);
  }
  return lowered;
}

/**
 * Fusion with the `lowered` chunks set apart: every other candidate is ranked
 * in lists without them (a changelog that matches every word takes no place
 * from the code), and each lowered chunk keeps its fused score among all,
 * multiplied by its factor.
 */
function lowerFiles(
  evidence: ReadonlyMap<Source, SourceEvidence>,
  lowered: ReadonlyMap<string, { factor: number }>,
  fuse: (evidence: ReadonlyMap<Source, SourceEvidence>) => SourceFused[],
): SourceFused[] {
  const isLowered = (source: Source, id: string) => source === "code" && lowered.has(id);
  const apart = fuse(withoutChunks(evidence, (id) => lowered.has(id)));
  const kept = fuse(evidence).filter((f) => isLowered(f.source, f.id))
    .map((f) => ({ ...f, score: f.score * lowered.get(f.id)!.factor }));
  return [...apart, ...kept].sort(byScore);
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
function onePartPerDefinition(ranked: RankedHit[], deps: RankingDeps): RankedHit[] {
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

/** The signals each mode fuses. */
export const MODE_SIGNALS: Record<RecallRequest["mode"], ReadonlySet<Signal>> = {
  hybrid: new Set(["vector", "lexical", "context", "graph", "mention", "file"]),
  vector: new Set(["vector"]),
  lexical: new Set(["lexical", "context"]),
};
