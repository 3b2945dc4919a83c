/**
 * Fusion across sources: each signal's candidates from every source in one
 * list, ordered by evidence that means the same in every source (a vector's
 * distance, a lexical score's share of the best reachable, the graph walk's
 * score), so a memory, a code chunk and a turn earn their places against each
 * other. Ranking each source on its own and standardising the scores made
 * every source's best look good, and a source with few candidates look like
 * none (docs/decisions.md).
 * @module
 */
import { type Fused, RRF_K, type Signal, type SignalWeights } from "./fuse.ts";
import type { Candidates } from "./retriever.ts";
import type { Source } from "./types.ts";

/** What each signal found in one source, in the source's own order, with the evidence it ranks by. */
export interface SourceEvidence {
  /** Vector candidates and their cosine distance (lower is better). */
  vector: ReadonlyArray<readonly [string, number]>;
  /** Lexical candidates and their share of the best reachable score (0 to 1). */
  lexical: ReadonlyArray<readonly [string, number]>;
  /** Documents found through their context, in groups that share a rank, with the group's share. */
  context: ReadonlyArray<{ ids: readonly string[]; share: number }>;
  /** Graph candidates and the walk's score. */
  graph: ReadonlyArray<readonly [string, number]>;
  /** The definitions the query names (and the tests that call them, when it asks for tests), best first (code). */
  mention: ReadonlyArray<readonly string[]>;
  /** Code files nearest in meaning (their chunks pooled), each the chunks listed elsewhere, with its distance. */
  file: ReadonlyArray<{ ids: readonly string[]; distance: number }>;
}

/** What the retrievers found (see `retriever.ts`), as the evidence of each of `sources`, in their order. */
export function evidenceOf(
  found: ReadonlyMap<Signal, Candidates>,
  sources: readonly Source[],
): Map<Source, SourceEvidence> {
  const of = (signal: Signal, source: Source) => found.get(signal)?.get(source) ?? [];
  const single = (signal: Signal, source: Source) =>
    of(signal, source).map((c) => [c.ids[0]!, c.evidence] as const);
  return new Map(sources.map((source) => [source, {
    vector: single("vector", source),
    lexical: single("lexical", source),
    context: of("context", source).map((c) => ({ ids: c.ids, share: c.evidence })),
    graph: single("graph", source),
    mention: of("mention", source).map((c) => c.ids),
    file: of("file", source).map((c) => ({ ids: c.ids, distance: c.evidence })),
  }]));
}

/** Every id one source's evidence holds, once each. */
export function evidenceIds(evidence: SourceEvidence): Set<string> {
  return new Set([
    ...evidence.vector.map(([id]) => id),
    ...evidence.lexical.map(([id]) => id),
    ...evidence.context.flatMap((group) => group.ids),
    ...evidence.graph.map(([id]) => id),
    ...evidence.mention.flat(),
    ...evidence.file.flatMap((group) => group.ids),
  ]);
}

/** `evidence` with the code chunks `dropped` says to leave out taken from every list. */
export function withoutChunks(
  evidence: ReadonlyMap<Source, SourceEvidence>,
  dropped: (id: string) => boolean,
): Map<Source, SourceEvidence> {
  const code = evidence.get("code");
  if (!code) return new Map(evidence);
  const kept = <T extends readonly [string, number]>(list: ReadonlyArray<T>) =>
    list.filter(([id]) => !dropped(id));
  const keptGroups = <T extends { ids: readonly string[] }>(groups: ReadonlyArray<T>) =>
    groups.map((group) => ({ ...group, ids: group.ids.filter((id) => !dropped(id)) }))
      .filter((group) => group.ids.length > 0);
  return new Map(evidence).set("code", {
    vector: kept(code.vector),
    lexical: kept(code.lexical),
    context: keptGroups(code.context),
    graph: kept(code.graph),
    mention: code.mention.map((ids) => ids.filter((id) => !dropped(id)))
      .filter((ids) => ids.length > 0),
    file: keptGroups(code.file),
  });
}

/** One candidate of the fused list: its source, its id within the source, and how it scored. */
export interface SourceFused extends Fused {
  source: Source;
}

/**
 * Weighted reciprocal rank fusion over lists that hold every source: each
 * signal's candidates are ranked together by their evidence, and each vote is
 * `weight / (k + rank)` with the candidate's own source's weights, scaled so
 * that the weights of the signals that match its source's documents by their
 * content sum to one: vectors, words, and a context (a memory's thread, a
 * chunk's file by its words) and a whole file's meaning when the source has
 * them. A source tuned with heavier weights, or one whose documents can also
 * be found through their context or file, is not favoured for it: plain
 * memories and turns have neither. The graph and named definitions add to a
 * score without raising what a source could reach. With one source this is
 * that source's own fusion, scaled.
 */
export function fuseAcrossSources(
  evidence: ReadonlyMap<Source, SourceEvidence>,
  signals: ReadonlySet<Signal>,
  weightsOf: (source: Source) => SignalWeights,
): SourceFused[] {
  const scaled = new Map<Source, SignalWeights>();
  for (const source of evidence.keys()) {
    scaled.set(source, scaledWeights(weightsOf(source), evidence.get(source)!, signals));
  }
  const all = [...evidence];
  const single =
    (list: (e: SourceEvidence) => ReadonlyArray<readonly [string, number]>) =>
    (e: SourceEvidence) => list(e).map(([id, value]) => ({ ids: [id], value }));
  const lists: Record<Signal, Array<ReadonlyArray<readonly [Source, string]>>> = {
    vector: byEvidence(all, single((e) => e.vector), "ascending"),
    lexical: byEvidence(all, single((e) => e.lexical), "descending"),
    context: byEvidence(
      all,
      (e) => e.context.map((group) => ({ ids: group.ids, value: group.share })),
      "descending",
    ),
    graph: byEvidence(all, single((e) => e.graph), "descending"),
    file: byEvidence(
      all,
      (e) => e.file.map((group) => ({ ids: group.ids, value: group.distance })),
      "ascending",
    ),
    mention: all.flatMap(([source, e]) =>
      e.mention.map((ids) => ids.map((id) => [source, id] as const))
    ),
  };
  const fused = new Map<string, SourceFused>();
  for (const signal of signals) {
    lists[signal].forEach((group, index) => {
      for (const [source, id] of group) {
        const key = `${source}:${id}`;
        const entry = fused.get(key) ?? { source, id, score: 0, ranks: {} };
        if (entry.ranks[signal] !== undefined) continue;
        entry.ranks[signal] = index + 1;
        entry.score += scaled.get(source)![signal] / (RRF_K + index + 1);
        fused.set(key, entry);
      }
    });
  }
  return [...fused.values()].sort(byScore);
}

/** Best first; ties by source and id, so the order is stable. */
export function byScore(a: SourceFused, b: SourceFused): number {
  return b.score - a.score ||
    (a.source === b.source ? (a.id < b.id ? -1 : 1) : (a.source < b.source ? -1 : 1));
}

/**
 * `weights` divided by the sum of the vector, lexical and (when they found
 * anything in the source) context and file weights among `signals`.
 */
function scaledWeights(
  weights: SignalWeights,
  evidence: SourceEvidence,
  signals: ReadonlySet<Signal>,
): SignalWeights {
  const total = [...signals]
    .filter((signal) =>
      signal === "vector" || signal === "lexical" ||
      (signal === "context" && evidence.context.length > 0) ||
      (signal === "file" && evidence.file.length > 0)
    )
    .reduce((sum, signal) => sum + weights[signal], 0);
  if (total <= 0) return weights;
  return Object.fromEntries(
    Object.entries(weights).map(([signal, weight]) => [signal, weight / total]),
  ) as SignalWeights;
}

/**
 * One signal's candidates of every source, ranked: the sources' lists merged
 * by the evidence of their heads, so each source keeps its own order (its
 * lexical index may rank with coordination, which the shares leave out) and
 * the sources interleave by evidence; ties go to the earlier source. A group
 * (the chunks of one file) shares one rank.
 */
function byEvidence(
  all: ReadonlyArray<readonly [Source, SourceEvidence]>,
  list: (e: SourceEvidence) => ReadonlyArray<{ ids: readonly string[]; value: number }>,
  order: "ascending" | "descending",
): Array<ReadonlyArray<readonly [Source, string]>> {
  const lists = all.map(([source, e]) => ({ source, entries: list(e), next: 0 }));
  const better = (a: number, b: number) => order === "ascending" ? a < b : a > b;
  const merged: Array<ReadonlyArray<readonly [Source, string]>> = [];
  for (;;) {
    let pick: (typeof lists)[number] | undefined;
    for (const candidate of lists) {
      const head = candidate.entries[candidate.next];
      if (head && (!pick || better(head.value, pick.entries[pick.next]!.value))) pick = candidate;
    }
    if (!pick) return merged;
    const source = pick.source;
    merged.push(pick.entries[pick.next++]!.ids.map((id) => [source, id] as const));
  }
}
