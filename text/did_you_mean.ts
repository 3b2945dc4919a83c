/**
 * "Did you mean …?" for a mistyped command or option: the known name closest
 * to what was typed, when it is close enough to be the one meant.
 * @module
 */

/** The candidate `typed` most likely meant (a prefix of it, or a few edits away), if any. */
export function closest(typed: string, candidates: readonly string[]): string | undefined {
  const prefixed = candidates.filter((candidate) => candidate.startsWith(typed));
  if (typed.length >= 3 && prefixed.length === 1) return prefixed[0];
  const allowed = Math.max(1, Math.min(2, Math.floor(typed.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(typed, name);
    if (distance <= allowed && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** ` (did you mean X?)`, or nothing when no candidate is close. */
export function didYouMean(typed: string, candidates: readonly string[]): string {
  const guess = closest(typed, candidates);
  return guess ? ` (did you mean ${guess}?)` : "";
}

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}
