/**
 * Ranking lexical hits by relevance with a cut, for answers where a weak
 * match is noise rather than a lower result: the turns of a topic's history.
 * @module
 */

/**
 * A hit scoring below this fraction of the best is left out. Turns are ranked
 * by BM25+ with coordination (`RANKING` in projections/text.ts), which
 * multiplies a score by the number of query words matched: with words of equal
 * weight a score grows with the square of the words matched, so a quarter of
 * the best keeps the turns that match about half as many of the topic's words
 * as the best one (fewer when theirs are the rare words), and drops the ones
 * that only share a common word with it.
 */
export const RELEVANCE_CUT = 0.25;

/**
 * Scores within this fraction of the first of their run are a tie: the same
 * words matched, in texts of slightly different lengths.
 */
export const TIE = 0.05;

/** The hits scoring at least {@linkcode RELEVANCE_CUT} of the best one, in their order. */
export function aboveCut<T extends { score: number }>(hits: readonly T[]): T[] {
  const best = Math.max(0, ...hits.map((hit) => hit.score));
  return hits.filter((hit) => hit.score >= best * RELEVANCE_CUT);
}

/**
 * `hits` best first, near-equal scores (within {@linkcode TIE} of the first
 * of their run) newest first by `at` (ISO 8601).
 *
 * @example
 * ```ts
 * byRelevance([
 *   { score: 1, at: "2026-03" },
 *   { score: 3, at: "2026-01" },
 *   { score: 2.9, at: "2026-02" },
 * ]);
 * // scores 2.9 (the newer of a tie), 3, then 1
 * ```
 */
export function byRelevance<T extends { score: number; at: string }>(hits: readonly T[]): T[] {
  const best = hits.toSorted((a, b) => b.score - a.score);
  const ranked: T[] = [];
  for (let start = 0; start < best.length;) {
    const floor = best[start]!.score * (1 - TIE);
    let end = start + 1;
    while (end < best.length && best[end]!.score >= floor) end++;
    ranked.push(...best.slice(start, end).sort((a, b) => b.at.localeCompare(a.at)));
    start = end;
  }
  return ranked;
}
