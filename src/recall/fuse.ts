/**
 * The rank lists that can vote for a candidate: vector similarity, lexical
 * (BM25) match, lexical match in context (a conversation turn with its
 * neighbours), the graph walk, the definitions the query names (code;
 * with the tests that call them when the query asks for tests), and the code
 * files nearest in meaning (their chunks' vectors pooled).
 */
export type Signal = "vector" | "lexical" | "context" | "graph" | "mention" | "file";

/** How much each signal's vote counts. */
export type SignalWeights = Record<Signal, number>;

/**
 * The default weights, tuned on locomo-dev with `bench/tune_locomo.ts` (see
 * docs/decisions.md). The graph weight is not tuned: locomo-dev has no
 * graph edges, and no code question gets the walk's vote (it comes from
 * memories and turns).
 */
export const DEFAULT_WEIGHTS: SignalWeights = {
  vector: 0.2,
  lexical: 0.2,
  context: 0.3,
  graph: 0.2,
  mention: 0.3,
  file: 0,
};

/**
 * Memories' own weights, where they differ from {@linkcode DEFAULT_WEIGHTS}:
 * tuned on locomo-dev with the shipped model, whose vectors rank memories
 * better than BM25 does (docs/decisions.md).
 */
export const MEMORY_WEIGHTS: Partial<SignalWeights> = { vector: 0.45, lexical: 0.25, context: 0.5 };

/**
 * Code's own weights, where they differ from {@linkcode DEFAULT_WEIGHTS}:
 * tuned on swebench-lite-dev's issues but sympy's (held out) with the shipped
 * model, whose vectors rank code better than BM25 over chunks and whole files
 * does; the file signal's (only code has files) chosen on the mined dev set,
 * where most leave-one-repository-out folds pick it (docs/decisions.md).
 */
export const CODE_WEIGHTS: Partial<SignalWeights> = { vector: 0.4, context: 0.1, file: 0.1 };

/**
 * RRF's constant: a hit at rank r (from 1) contributes weight / (k + r).
 * 5, not the usual 60: measured on locomo-dev, a small k lets the top of each
 * list count (docs/decisions.md).
 */
export const RRF_K = 5;

/** A ranked list, best first: each entry one id, or ids that share a rank (the chunks of a file). */
export type RankedList = readonly (string | readonly string[])[];

/** One candidate's fused score and the parts it came from. */
export interface Fused {
  id: string;
  score: number;
  /** Rank (from 1) in each list that had it. */
  ranks: Partial<Record<Signal, number>>;
}

/**
 * Weighted reciprocal rank fusion: each list votes `weight / (k + rank)` for
 * its items; the sum orders the candidates (ties by id, so the order is stable).
 */
export function reciprocalRankFusion(
  lists: Partial<Record<Signal, RankedList>>,
  weights: SignalWeights = DEFAULT_WEIGHTS,
  k = RRF_K,
): Fused[] {
  const fused = new Map<string, Fused>();
  for (const [signal, list] of Object.entries(lists) as Array<[Signal, RankedList]>) {
    list.forEach((ids, index) => {
      for (const id of typeof ids === "string" ? [ids] : ids) {
        const entry = fused.get(id) ?? { id, score: 0, ranks: {} };
        if (entry.ranks[signal] !== undefined) continue;
        entry.ranks[signal] = index + 1;
        entry.score += weights[signal] / (k + index + 1);
        fused.set(id, entry);
      }
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}
