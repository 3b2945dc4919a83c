/**
 * The report: the table of every workload's counters, and what was seen along the way.
 * @module
 */

import { newTally, type Tally } from "./tally.ts";

function row(t: Tally): string {
  const verifyAfter = t.verifyFailed === 0 ? "–" : `${t.verifyReopenOk}/${t.verifyFailed}`;
  const rerun = t.reruns === 0 ? "–" : `${t.rerunOk}/${t.reruns}`;
  return `| ${t.name} | ${t.kills} | ${t.finishedFirst} | ${t.acked} | ${t.checked} | ${t.lost} | ` +
    `${t.duplicated} | ${t.unopenable} | ${t.checkErrors} | ${t.verifyOk}/${
      t.verifyOk + t.verifyFailed
    } | ${verifyAfter} | ${rerun} | ${t.commandErrors} | ${t.torn} | ${t.warned} | ${
      t.seconds.toFixed(0)
    } |`;
}

/** The "crash" section of bench/RESULTS.md, from the tallies of the workloads. */
export function report(
  tallies: Tally[],
  seed: number,
  quota: number,
  seconds: number,
  code: string,
): string {
  const total = newTally("**total**", "");
  for (const t of tallies) {
    for (
      const key of [
        "rounds",
        "kills",
        "finishedFirst",
        "acked",
        "checked",
        "lost",
        "duplicated",
        "unopenable",
        "checkErrors",
        "verifyOk",
        "verifyFailed",
        "verifyReopenOk",
        "reruns",
        "rerunOk",
        "commandErrors",
        "torn",
        "warned",
        "seconds",
      ] as const
    ) total[key] += t[key];
  }
  const out: string[] = [];
  out.push("## Crash safety (SIGKILL)");
  out.push("");
  out.push(
    `${total.kills} SIGKILLs of running \`cairn\` processes (asked for ${quota}; seed ${seed}, ` +
      `\`CAIRN_BENCH_SEED=${seed} CAIRN_BENCH_CRASH_KILLS=${quota}\` repeats the plan, not the ` +
      `timing), ${(seconds / 60).toFixed(1)} minutes in all: **${total.lost} acknowledged ` +
      `writes lost, ${total.unopenable} stores left unopenable** (${total.checked} ` +
      `acknowledged items checked). Code measured: ${code}.`,
  );
  out.push("");
  out.push(
    "After each kill: `cairn status --json` must open the store; everything acknowledged so far " +
      "is read back (`list --json`, `graph read --json`, words-only `recall --batch` for code " +
      "and session turns, and the log's files for purged text); `cairn verify` is run, and when " +
      "it fails, the store is opened once more and `verify` run again; where a user would run " +
      "the command again, it is, and must finish with the right result. Kill delays: 50 ms to " +
      "3 s after a loop starts; for a single command, 50 ms to 0.95 × its undisturbed duration " +
      "(at least 300 ms; after a round whose command had already finished, that run's duration " +
      "is the new estimate; such a round does not count as a kill, and is checked all the " +
      "same). Every process runs with `CAIRN_LOCK_WAIT_SECONDS=30`.",
  );
  out.push("");
  out.push(
    "| workload | kills | finished first | acked writes | acked items checked | lost | " +
      "duplicated | unopenable | checks not made | verify ok right after | verify ok after " +
      "reopen | re-run ok | command errors | torn tails cut | opens that warned | s |",
  );
  out.push("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
  for (const t of tallies) out.push(row(t));
  out.push(row(total));
  out.push("");
  out.push(
    "_acked writes_: writes the killed processes acknowledged (ids printed, loop steps that " +
      "exited 0, runs that had finished). _acked items checked_: items read back after the kills " +
      "(all acknowledged so far, after every kill). _command errors_: commands in the loops that " +
      "exited non-zero before the kill. _torn tails cut_: opens after a kill that reported cutting " +
      "a torn last log record. _opens that warned_: first opens after a kill (`status`, or for " +
      "the owner the CLI loop's next command) that printed a warning about what the crash left.",
  );
  out.push("");
  out.push("Workloads:");
  out.push("");
  for (const t of tallies) out.push(`- ${t.name}: ${t.what}.`);
  const problems = new Map<string, number>();
  for (const t of tallies) {
    for (const [line, n] of t.verifyProblems) problems.set(`${t.name}: ${line}`, n);
  }
  out.push("");
  out.push("Warnings printed by the first open after a kill (count, then one exact example):");
  out.push("");
  const warnings = tallies.flatMap((t) => [...t.warnings.values()]);
  if (warnings.length === 0) out.push("- none.");
  for (const { n, example } of warnings) out.push(`- ${n}× ${example.replaceAll("|", "\\|")}`);
  out.push("");
  out.push("`cairn verify` right after a kill (before the reopen):");
  out.push("");
  if (problems.size === 0) out.push("- no problem reported.");
  for (const [line, n] of problems) out.push(`- ${n}× ${line.replaceAll("|", "\\|")}`);
  const errors = tallies.flatMap((t) =>
    [...t.commandErrorSamples].map(([line, n]) => `${n}× ${t.name}: ${line}`)
  );
  if (errors.length) {
    out.push("");
    out.push("Commands that exited non-zero before their kill:");
    out.push("");
    for (const line of errors) out.push(`- ${line.replaceAll("|", "\\|")}`);
  }
  const failures = tallies.flatMap((t) => t.failures);
  out.push("");
  out.push("Failures:");
  out.push("");
  if (failures.length === 0) out.push("- none.");
  for (const line of failures) out.push(`- ${line.replaceAll("|", "\\|")}`);
  const notes = tallies.flatMap((t) => t.notes);
  if (notes.length) {
    out.push("");
    out.push("Notes:");
    out.push("");
    for (const line of notes) out.push(`- ${line.replaceAll("|", "\\|")}`);
  }
  return out.join("\n");
}
