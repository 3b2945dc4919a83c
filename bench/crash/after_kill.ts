/**
 * The checks that follow every kill.
 * @module
 */
import { brief, cairn } from "./cairn.ts";
import { verify } from "./checks.ts";
import { type Context, keepStore } from "./context.ts";
import { noteWarnings, shape } from "./output.ts";
import { bump, type Check, type Tally } from "./tally.ts";

/**
 * What follows every kill: the store must open (`status --json`), every acknowledged write must
 * be there (`check`), `verify` is run (and after a failure, an open and `verify` again), and
 * `rerun` (the same command again, where a user would run it again) must finish correctly.
 * False when the store would not open (it is then moved aside, for inspection).
 */
export async function afterKill(
  t: Tally,
  ctx: Context,
  store: string,
  label: string,
  check: () => Promise<Check>,
  rerun?: () => Promise<string[]>,
): Promise<boolean> {
  let keep = false;
  const status = await cairn(store, ["status", "--json"]);
  if (/torn/.test(status.err)) t.torn++;
  if (noteWarnings(t, `${label}, \`cairn status --json\` after the kill`, status.err, true)) {
    t.warned++;
  }
  if (status.code !== 0) {
    t.unopenable++;
    const kept = await keepStore(ctx, store, label, true);
    t.failures.push(
      `${label}: store left unopenable: \`cairn --store ${kept} status --json\` exited ${
        status.timedOut ? "(timed out)" : status.code
      }: ${brief(status.err || status.out)}`,
    );
    console.log(`[crash]   STORE UNOPENABLE: ${brief(status.err)}`);
    return false;
  }
  try {
    const report = JSON.parse(status.out) as { owner?: number };
    if (report.owner) {
      t.failures.push(`${label}: after the kill, pid ${report.owner} still held the store`);
    }
  } catch {
    t.failures.push(`${label}: \`status --json\` printed no JSON: ${brief(status.out)}`);
  }
  let found: Check | undefined;
  try {
    found = await check();
  } catch (error) {
    t.checkErrors++;
    keep = true;
    t.failures.push(`${label}: the check could not be made: ${(error as Error).message}`);
  }
  if (found) {
    t.checked += found.checked;
    t.lost += found.lost.length;
    const duplicated = found.duplicated ?? [];
    t.duplicated += duplicated.length;
    for (const what of found.lost.slice(0, 5)) {
      t.failures.push(`${label}: acknowledged write lost: ${what}`);
    }
    if (found.lost.length > 5) t.failures.push(`${label}: … ${found.lost.length - 5} more lost`);
    for (const what of duplicated.slice(0, 5)) t.failures.push(`${label}: duplicated: ${what}`);
    if (found.lost.length + duplicated.length > 0) keep = true;
  }
  const first = await verify(store);
  if (first.ok) t.verifyOk++;
  else {
    t.verifyFailed++;
    for (const problem of first.problems) bump(t.verifyProblems, shape(problem));
    await cairn(store, ["status", "--json"]); // an open finishes what a crash left (a purge, ...)
    const again = await verify(store);
    if (again.ok) t.verifyReopenOk++;
    else {
      keep = true;
      t.failures.push(
        `${label}: \`cairn verify\` still fails after reopening: ${again.problems.join("; ")}`,
      );
    }
  }
  if (rerun) {
    t.reruns++;
    let problems: string[];
    try {
      problems = await rerun();
    } catch (error) {
      problems = [`the check after the re-run could not be made: ${(error as Error).message}`];
    }
    if (problems.length === 0) t.rerunOk++;
    else {
      keep = true;
      for (const problem of problems.slice(0, 5)) t.failures.push(`${label}: re-run: ${problem}`);
    }
  }
  if (keep) {
    const kept = await keepStore(ctx, store, label, false);
    t.notes.push(`${label}: store kept at ${kept}`);
  }
  const state = found
    ? `checked ${found.checked}, lost ${found.lost.length}`
    : "check could not be made";
  console.log(
    `[crash]   ${state}; verify ${first.ok ? "ok" : `failed (${first.problems.length})`}` +
      (keep ? "; FAILURE, see the report" : ""),
  );
  return true;
}
