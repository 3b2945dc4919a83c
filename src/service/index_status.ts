/**
 * A project's index as lines for people, for `cairn index`, `cairn status`
 * and the `get_index_status` tool alike.
 * @module
 */
import type { HistorySummary } from "../../projections/code_catalog.ts";
import { plural } from "../recall/vector_lag.ts";
import type { IndexReport, ProjectStatus } from "./code_index.ts";

/** What a project's git history held: the pairs of files changed together, and the commit read. */
export function historyLine(
  history: Pick<HistorySummary, "pairs" | "commits"> & { head?: string; shallow?: true },
): string {
  return `history: ${plural(history.pairs, "pair")} of files changed together in the last ` +
    `${plural(history.commits, "commit")}` +
    (history.head ? ` (at ${history.head.slice(0, 10)})` : "") +
    (history.shallow ? "; the clone is shallow: `git fetch --unshallow` gives it all" : "");
}

/** What an index run skipped, most common reason first; no line when nothing was skipped. */
export function skippedLines(report: IndexReport): string[] {
  const reasons = Object.entries(report.skippedByReason).sort((a, b) => b[1] - a[1]);
  if (reasons.length === 0) return [];
  return [`skipped: ${reasons.map(([reason, count]) => `${reason} (${count})`).join(", ")}`];
}

/** A project's index status as lines for people. */
export function statusLines(project: ProjectStatus): string[] {
  const lines = [
    `${project.project}  ${project.root}`,
    `  ${project.files} files, ${project.chunks} chunks, last indexed ${
      project.lastIndexed ?? "never"
    }`,
    ...(project.history ? [`  ${historyLine(project.history)}`] : []),
  ];
  const run = project.lastRun;
  if (run) {
    lines.push(
      `  last run ${run.finishedAt}: ${run.indexed} indexed, ${run.unchanged} unchanged, ` +
        `${run.removed} removed, ${run.skipped} skipped in ${run.seconds.toFixed(2)} s`,
    );
    lines.push(...skippedLines(run).map((line) => `  ${line}`));
    for (const example of run.skippedExamples) {
      lines.push(`    ${example.path}: ${example.reason}`);
    }
    const unlisted = run.skipped - run.skippedExamples.length;
    if (unlisted > 0) lines.push(`    … and ${plural(unlisted, "more file")}`);
  }
  return lines;
}
