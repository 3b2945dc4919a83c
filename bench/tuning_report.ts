/**
 * The RESULTS section of a cross-validated tuning run (bench/tune_swebench.ts):
 * the shipped setting, the grid's in-sample best and the
 * leave-one-repository-out choice, overall and per repository, beside BM25
 * over whole files from the same benchmark run.
 * @module
 */
import { type IssueScore, summarize, type Summary } from "./code_scores.ts";
import type { CodeSet } from "./code_sets.ts";
import { bestPoint, type Fold, type GridPoint } from "./cross_validate.ts";

/** What a tuning section is made from; the grid's first point is the shipped one. */
export interface TuningResults {
  set: CodeSet;
  /** Each grid point's setting, as said in the report (`vector 0.2, mention 0`). */
  grid: readonly string[];
  /** Each issue's repository, in the order of the points' scores. */
  repos: readonly string[];
  points: readonly GridPoint[];
  folds: readonly Fold[];
  /** Each issue scored with its fold's point. */
  heldOut: readonly IssueScore[];
  /** Each issue under the shipped setting over code in its language only (`--language`). */
  filtered: readonly IssueScore[];
  /** BM25 over whole files, per issue, when the benchmark's saved runs hold it. */
  bm25: readonly IssueScore[] | undefined;
  /** The shipped setting in full. */
  shipped: string;
}

const f = (x: number) => x.toFixed(3);
const fn10 = (s: Summary) => s.withSpans ? f(s.fn10) : "–";
const signed = (x: number) => (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(3);

/** The markdown section of a tuning run. */
export function tuningReport(results: TuningResults): string {
  const { set, grid, repos, points, folds, heldOut, bm25 } = results;
  const best = bestPoint(points);
  const bm25All = bm25 && summarize(bm25);
  const row = (name: string, s: Summary) =>
    `| ${name} | ${f(s.file1)} | ${f(s.file5)} | ${f(s.file10)} | ` +
    `${fn10(s)} | ${bm25All ? signed(s.file5 - bm25All.file5) : "–"} |`;
  const overall = [
    row(`shipped (${results.shipped})`, summarize(points[0]!.scores)),
    row(`in-sample best (${grid[best]})`, summarize(points[best]!.scores)),
    row("leave-one-repository-out", summarize(heldOut)),
    row("shipped, the issue's language only (`--language`)", summarize(results.filtered)),
    ...(bm25All
      ? [
        `| BM25 whole files (the benchmark run's) | ${f(bm25All.file1)} | ${f(bm25All.file5)} | ` +
        `${f(bm25All.file10)} | – | – |`,
      ]
      : []),
  ];
  const of = (scores: readonly IssueScore[], issues: number[]) =>
    summarize(issues.map((issue) => scores[issue]!));
  const perRepo = folds.map((fold) => {
    const held = of(heldOut, fold.issues);
    return `| ${fold.repo} | ${fold.issues.length} | ` +
      `${bm25 ? f(of(bm25, fold.issues).file5) : "–"} | ` +
      `${f(of(points[0]!.scores, fold.issues).file5)} | ` +
      `${f(of(points[best]!.scores, fold.issues).file5)} | ${f(held.file5)} | ` +
      `${fn10(held)} | ${grid[fold.point]} |`;
  });
  const top = points.map((point, i) => ({ i, s: summarize(point.scores) }))
    .sort((a, b) =>
      b.s.file5 - a.s.file5 || b.s.fn10 - a.s.fn10 ||
      points[a.i]!.changes - points[b.i]!.changes || a.i - b.i
    ).slice(0, 10)
    .map(({ i, s }) =>
      `| ${grid[i]} | ${f(s.file1)} | ${f(s.file5)} | ${f(s.file10)} | ${fn10(s)} |`
    );
  const count = new Set(repos).size;
  return `## Code fusion weights and rules cross-validated by repository (${set.title}: ${repos.length} issues, ${count} repositories)

Every issue was ranked in-process over the store kept at its base commit, as a user asks (all code,
no language filter), once for each of ${points.length} settings (fusion weights, and which kinds of
file are lowered below the code; the shipped setting first). For each repository, the setting with
the highest file Acc@5 on the other repositories' issues (ties: function Acc@10, then the fewest
changes from the shipped setting) was chosen and scored on the held-out repository's issues:
"leave-one-repository-out" is the figure to report. The in-sample best was chosen on every issue,
itself included.

| setting | file Acc@1 | Acc@5 | Acc@10 | function Acc@10 | file Acc@5 − BM25 |
| --- | ---: | ---: | ---: | ---: | ---: |
${overall.join("\n")}

File Acc@5 by repository, each held out in turn (function Acc@10 of the held-out figure where the
repository's issues have spans):

| repository | issues | BM25 whole files | shipped | in-sample best | held out | held-out function Acc@10 | chosen on the others |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |
${perRepo.join("\n")}

The grid's best ten on every issue (in-sample):

| setting | file Acc@1 | Acc@5 | Acc@10 | function Acc@10 |
| --- | ---: | ---: | ---: | ---: |
${top.join("\n")}`;
}
