/** Share of the gold ids found in the first `k` results. */
export function recallAt(results: readonly string[], gold: readonly string[], k: number): number {
  const top = new Set(results.slice(0, k));
  return gold.filter((id) => top.has(id)).length / gold.length;
}

/** 1 when any gold id is in the first `k` results, else 0. */
export function hitAt(results: readonly string[], gold: readonly string[], k: number): number {
  const wanted = new Set(gold);
  return results.slice(0, k).some((id) => wanted.has(id)) ? 1 : 0;
}

/** Normalised discounted cumulative gain at `k` with binary relevance. */
export function ndcgAt(results: readonly string[], gold: readonly string[], k: number): number {
  const wanted = new Set(gold);
  let dcg = 0;
  results.slice(0, k).forEach((id, i) => {
    if (wanted.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(gold.length, k); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** The mean of a list (0 for an empty one). */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length;
}
