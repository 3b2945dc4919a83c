/**
 * Leave-one-repository-out choice among grid points (fusion weights, say):
 * for each repository, the point that scores best on the other repositories'
 * issues is chosen and scored on the held-out one, so no figure reported is
 * tuned on what it measures. Pure: it works on per-issue scores computed once.
 * @module
 */
import type { IssueScore } from "./code_scores.ts";

/** A grid point: its per-issue scores (in issue order) and how far it is from the shipped point. */
export interface GridPoint {
  /** How many settings it changes from the shipped ones (fewer wins a tie). */
  changes: number;
  scores: readonly IssueScore[];
}

/** The point chosen for one held-out repository. */
export interface Fold {
  repo: string;
  /** The chosen point's index in the grid. */
  point: number;
  /** The held-out issues' indices. */
  issues: number[];
}

/**
 * The index of the best point over the issues `keep` accepts: the highest
 * file Acc@5, then the highest function Acc@10 (over the issues with spans),
 * then the fewest changes from the shipped point, then the earliest. Sums
 * stand for means (every point is scored on the same issues), so ties are
 * exact.
 */
export function bestPoint(
  points: readonly GridPoint[],
  keep: (issue: number) => boolean = () => true,
): number {
  if (points.length === 0) throw new Error("no grid points to choose from");
  const key = (point: GridPoint) => {
    let file5 = 0;
    let fn10 = 0;
    point.scores.forEach((score, issue) => {
      if (!keep(issue)) return;
      file5 += score.file5;
      fn10 += score.fn10 ?? 0;
    });
    return [file5, fn10, -point.changes];
  };
  const keys = points.map(key);
  let best = 0;
  for (let i = 1; i < points.length; i++) {
    const [a, b] = [keys[i]!, keys[best]!];
    const j = a.findIndex((value, k) => value !== b[k]);
    if (j >= 0 && a[j]! > b[j]!) best = i;
  }
  return best;
}

/**
 * One fold per repository (in order of first appearance in `repos`, the
 * repository of each issue): the point best on the other repositories.
 */
export function leaveOneRepositoryOut(
  repos: readonly string[],
  points: readonly GridPoint[],
): Fold[] {
  for (const point of points) {
    if (point.scores.length !== repos.length) {
      throw new Error(`a grid point has ${point.scores.length} scores for ${repos.length} issues`);
    }
  }
  return [...new Set(repos)].map((repo) => ({
    repo,
    point: bestPoint(points, (issue) => repos[issue] !== repo),
    issues: repos.flatMap((r, issue) => r === repo ? [issue] : []),
  }));
}

/** Each issue's score under the point its fold chose: the cross-validated scores, in order. */
export function heldOutScores(folds: readonly Fold[], points: readonly GridPoint[]): IssueScore[] {
  const scores: IssueScore[] = [];
  for (const fold of folds) {
    for (const issue of fold.issues) scores[issue] = points[fold.point]!.scores[issue]!;
  }
  return scores;
}
