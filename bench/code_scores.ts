/**
 * How a code ranking is scored against an issue's fix: a file counts at k
 * when every gold file is among the first k distinct files, a function when
 * every `file::name` gold span is among the first k distinct `file::name`
 * pairs.
 * @module
 */
import type { Gold } from "./code_sets.ts";
import { mean } from "./metrics.ts";

/** One ranking of an issue: distinct files and distinct `file::name` pairs, best first. */
export interface Ranking {
  files: string[];
  functions: string[];
}

/** One issue's scores (1 or 0 each); the function scores are absent when its gold has no spans. */
export interface IssueScore {
  file1: number;
  file3: number;
  file5: number;
  file10: number;
  fn5?: number;
  fn10?: number;
}

/** 1 when every wanted item is among the first `k`, else 0. */
export function allAt(ranked: readonly string[], wanted: readonly string[], k: number): number {
  const top = new Set(ranked.slice(0, k));
  return wanted.every((item) => top.has(item)) ? 1 : 0;
}

/** The gold spans as `file::name` pairs. */
export function goldFunctions(gold: Gold): string[] {
  return Object.entries(gold.gold_spans).flatMap(([file, names]) =>
    names.map((name) => `${file}::${name}`)
  );
}

/** Scores `ranking` against `gold`. */
export function scoreIssue(ranking: Ranking, gold: Gold): IssueScore {
  const [file1, file3, file5, file10] = [1, 3, 5, 10].map((k) =>
    allAt(ranking.files, gold.gold_files, k)
  ) as [number, number, number, number];
  const functions = goldFunctions(gold);
  if (functions.length === 0) return { file1, file3, file5, file10 };
  return {
    file1,
    file3,
    file5,
    file10,
    fn5: allAt(ranking.functions, functions, 5),
    fn10: allAt(ranking.functions, functions, 10),
  };
}

/** Mean scores of a group of issues; the function means are over the issues with spans. */
export interface Summary {
  issues: number;
  withSpans: number;
  file1: number;
  file3: number;
  file5: number;
  file10: number;
  fn5: number;
  fn10: number;
}

/** The mean of each score over `scores`. */
export function summarize(scores: readonly IssueScore[]): Summary {
  const spans = scores.filter((s) => s.fn10 !== undefined);
  return {
    issues: scores.length,
    withSpans: spans.length,
    file1: mean(scores.map((s) => s.file1)),
    file3: mean(scores.map((s) => s.file3)),
    file5: mean(scores.map((s) => s.file5)),
    file10: mean(scores.map((s) => s.file10)),
    fn5: mean(spans.map((s) => s.fn5!)),
    fn10: mean(spans.map((s) => s.fn10!)),
  };
}
