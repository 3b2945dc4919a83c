import assert from "node:assert/strict";
import { MINED_DEV } from "../../bench/code_sets.ts";
import type { IssueScore } from "../../bench/code_scores.ts";
import { heldOutScores, leaveOneRepositoryOut } from "../../bench/cross_validate.ts";
import { tuningReport } from "../../bench/tuning_report.ts";

const s = (file5: number): IssueScore => ({ file1: 0, file3: file5, file5, file10: file5 });

Deno.test("tuningReport() sets the held-out figure beside the shipped one and the in-sample best", () => {
  const repos = ["o/a", "o/b"];
  // "vector 0.2" wins on both repositories, so each held-out fold chooses it.
  const points = [
    { changes: 0, scores: [s(0), s(0)] },
    { changes: 1, scores: [s(1), s(1)] },
  ];
  const folds = leaveOneRepositoryOut(repos, points);
  const report = tuningReport({
    set: MINED_DEV,
    grid: ["shipped", "vector 0.2"],
    repos,
    points,
    folds,
    heldOut: heldOutScores(folds, points),
    filtered: [s(1), s(0)],
    bm25: [s(1), s(0)],
    shipped: "vector 0.4",
  });
  assert.match(report, /2 issues, 2 repositories/);
  assert.match(
    report,
    /\| shipped \(vector 0\.4\) \| 0\.000 \| 0\.000 \| 0\.000 \| – \| −0\.500 \|/,
  );
  assert.match(
    report,
    /\| in-sample best \(vector 0\.2\) \| 0\.000 \| 1\.000 \| 1\.000 \| – \| \+0\.500 \|/,
  );
  assert.match(
    report,
    /\| leave-one-repository-out \| 0\.000 \| 1\.000 \| 1\.000 \| – \| \+0\.500 \|/,
  );
  assert.match(
    report,
    /\| shipped, the issue's language only \(`--language`\) \| 0\.000 \| 0\.500 \| 0\.500 \| – \| \+0\.000 \|/,
  );
  assert.match(
    report,
    /\| o\/a \| 1 \| 1\.000 \| 0\.000 \| 1\.000 \| 1\.000 \| – \| vector 0\.2 \|/,
  );
});
