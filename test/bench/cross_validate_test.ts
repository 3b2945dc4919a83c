import assert from "node:assert/strict";
import {
  bestPoint,
  type GridPoint,
  heldOutScores,
  leaveOneRepositoryOut,
} from "../../bench/cross_validate.ts";
import type { IssueScore } from "../../bench/code_scores.ts";

/** An issue's scores from its file Acc@5 and, when it has spans, its function Acc@10. */
const s = (file5: number, fn10?: number): IssueScore => ({
  file1: 0,
  file3: 0,
  file5,
  file10: file5,
  ...(fn10 === undefined ? {} : { fn5: fn10, fn10 }),
});

Deno.test("bestPoint() takes the highest file Acc@5", () => {
  const points: GridPoint[] = [
    { changes: 0, scores: [s(1), s(0), s(0)] },
    { changes: 2, scores: [s(1), s(1), s(0)] },
  ];
  assert.equal(bestPoint(points), 1);
});

Deno.test("bestPoint() breaks a file tie by function Acc@10, then by fewer changes, then order", () => {
  const byFunctions: GridPoint[] = [
    { changes: 0, scores: [s(1, 0), s(0)] },
    { changes: 3, scores: [s(0, 1), s(1)] },
  ];
  assert.equal(bestPoint(byFunctions), 1);
  const byChanges: GridPoint[] = [
    { changes: 2, scores: [s(1, 1)] },
    { changes: 1, scores: [s(1, 1)] },
    { changes: 1, scores: [s(1, 1)] },
  ];
  assert.equal(bestPoint(byChanges), 1);
});

Deno.test("bestPoint() counts only the issues it keeps", () => {
  const points: GridPoint[] = [
    { changes: 0, scores: [s(1), s(0)] },
    { changes: 1, scores: [s(0), s(1)] },
  ];
  assert.equal(bestPoint(points, (issue) => issue === 1), 1);
  assert.equal(bestPoint(points, (issue) => issue === 0), 0);
});

Deno.test("leaveOneRepositoryOut() chooses each repository's point on the others only", () => {
  // Point 1 wins on repository a (two issues), point 2 on b and c (one each); point 0 is shipped.
  const repos = ["a", "a", "b", "c"];
  const points: GridPoint[] = [
    { changes: 0, scores: [s(0), s(1), s(0), s(0)] },
    { changes: 1, scores: [s(1), s(1), s(0), s(0)] },
    { changes: 1, scores: [s(0), s(0), s(1), s(1)] },
  ];
  const folds = leaveOneRepositoryOut(repos, points);
  assert.deepEqual(folds, [
    { repo: "a", point: 2, issues: [0, 1] },
    { repo: "b", point: 1, issues: [2] },
    { repo: "c", point: 1, issues: [3] },
  ]);
  // Each held-out repository gets the point its own issues did not pick: every issue is missed.
  assert.deepEqual(heldOutScores(folds, points).map((x) => x.file5), [0, 0, 0, 0]);
});

Deno.test("leaveOneRepositoryOut() with one repository keeps the shipped point", () => {
  const points: GridPoint[] = [
    { changes: 1, scores: [s(1)] },
    { changes: 0, scores: [s(0)] },
  ];
  assert.deepEqual(leaveOneRepositoryOut(["a"], points), [{ repo: "a", point: 1, issues: [0] }]);
});

Deno.test("leaveOneRepositoryOut() refuses points scored on other issues", () => {
  assert.throws(
    () => leaveOneRepositoryOut(["a", "b"], [{ changes: 0, scores: [s(1)] }]),
    /1 scores for 2 issues/,
  );
});
