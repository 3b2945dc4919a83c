/**
 * `deno task bench crash`: SIGKILLs real `cairn` processes in the middle of every command that
 * writes, then checks that each write a process had acknowledged before it died is still there
 * and that the store still opens. Each kill is followed by `cairn status --json` (the store must
 * open), a check of everything acknowledged so far, `cairn verify` (and, when it complains, an
 * open and a second `verify`), and, for commands a user would simply run again (import, index,
 * ingest, compact, replay, delete-project), that run, which must finish with the right result.
 *
 * Workloads: loops of `remember`, `revise`, `forget`, `forget --purge`, `graph` subcommands and
 * `ingest claude` (a bash loop of sequential commands, the whole process group killed after a
 * random delay; every line printed before the kill is acknowledged); single `import`, `index`,
 * `compact`, `replay` and `delete-project` runs killed at a random moment of their measured
 * duration; and a `cairn serve` owner killed while `remember` calls reach it over MCP (HTTP) and
 * through the CLI's relay. The plan (delays, texts, operations) comes from a seeded RNG:
 * CAIRN_BENCH_SEED (printed), CAIRN_BENCH_CRASH_KILLS (default 120) kills of a running process.
 * Stores that fail a check are kept (their paths are printed and reported); the rest is removed.
 *
 * The code under test is a snapshot of the repository's HEAD commit taken when the run starts
 * (`git archive` of main.ts, deno.json, deno.lock, src/, events/, projections/, with a copy of
 * node_modules and a link to models/), so that edits made to the checkout during the run do not
 * change what is measured; CAIRN_BENCH_CRASH_CODE=worktree runs the checkout itself instead.
 * @module
 */
import { runInfo, writeSection } from "../report.ts";
import type { Context } from "./context.ts";
import { benchForget } from "./forget.ts";
import { benchGraph } from "./graph.ts";
import { benchImport } from "./import.ts";
import { benchIndex } from "./index.ts";
import { benchIngest } from "./ingest.ts";
import { benchOnTemplate } from "./log_commands.ts";
import { benchServe } from "./owner.ts";
import { killEverything, ROOT, sleep, snapshotCode, stopStarting } from "./processes.ts";
import { benchRemember } from "./remember.ts";
import { report } from "./report.ts";
import { benchRevise } from "./revise.ts";
import { Rng } from "./rng.ts";
import { newTally, type Tally } from "./tally.ts";
import { buildTemplate, type Template } from "./template.ts";

const DEFAULT_SEED = 20261125;
const DEFAULT_KILLS = 120;

/**
 * SIGKILLs real `cairn` processes during every command that writes and checks that no
 * acknowledged write is lost and every store still opens; writes the "crash" section of
 * bench/RESULTS.md.
 */
export async function benchCrash(): Promise<void> {
  const seed = Number(Deno.env.get("CAIRN_BENCH_SEED") ?? DEFAULT_SEED);
  const quota = Number(Deno.env.get("CAIRN_BENCH_CRASH_KILLS") ?? DEFAULT_KILLS);
  if (!Number.isInteger(seed) || !Number.isInteger(quota) || quota < 1) {
    throw new Error("CAIRN_BENCH_SEED and CAIRN_BENCH_CRASH_KILLS take whole numbers");
  }
  console.log(`[crash] seed ${seed}, ${quota} kills`);
  const ctx: Context = {
    rng: new Rng(seed),
    tmp: await Deno.makeTempDir({ prefix: "cairn-bench-crash-" }),
    kept: [],
  };
  const interrupted = async () => {
    stopStarting();
    await killEverything();
    for (let i = 0; i < 5; i++) {
      await sleep(200);
      await killEverything();
      await Deno.remove(ctx.tmp, { recursive: true }).catch(() => {});
    }
    Deno.exit(130);
  };
  Deno.addSignalListener("SIGINT", interrupted);
  Deno.addSignalListener("SIGTERM", interrupted);
  const started = performance.now();
  let code = `the checkout at ${ROOT} as it was during the run`;
  let template: Promise<Template> | undefined;
  const sharedTemplate = () => (template ??= buildTemplate(ctx));
  const workloads: Array<[string, (quota: number) => Promise<Tally>]> = [
    ["remember", (q) => benchRemember(ctx, q)],
    ["serve owner", (q) => benchServe(ctx, q)],
    ["import", (q) => benchImport(ctx, q)],
    ["revise", (q) => benchRevise(ctx, q)],
    ["forget", (q) => benchForget(ctx, q, false)],
    ["forget --purge", (q) => benchForget(ctx, q, true)],
    ["graph", (q) => benchGraph(ctx, q)],
    ["ingest claude", (q) => benchIngest(ctx, q)],
    ["index", (q) => benchIndex(ctx, q)],
    ["compact", (q) => benchOnTemplate(ctx, sharedTemplate, "compact", q)],
    ["replay", (q) => benchOnTemplate(ctx, sharedTemplate, "replay", q)],
    ["delete-project", (q) => benchOnTemplate(ctx, sharedTemplate, "delete-project", q)],
  ];
  // The kills, spread evenly; the remainder to workloads the RNG picks.
  const quotas = workloads.map(() => Math.floor(quota / workloads.length));
  for (let left = quota % workloads.length; left > 0;) {
    const i = ctx.rng.int(0, workloads.length - 1);
    if (quotas[i] === Math.floor(quota / workloads.length)) {
      quotas[i]!++;
      left--;
    }
  }
  const tallies: Tally[] = [];
  try {
    if (Deno.env.get("CAIRN_BENCH_CRASH_CODE") !== "worktree") {
      const commit = await snapshotCode(ctx.tmp);
      code = `commit ${commit.slice(0, 7)} (a snapshot of HEAD taken when the run started)`;
    }
    console.log(`[crash] code: ${code}`);
    for (const [i, [name, run]] of workloads.entries()) {
      const share = quotas[i]!;
      if (share === 0) continue;
      console.log(`[crash] ${name}: ${share} kills`);
      const began = performance.now();
      let tally: Tally;
      try {
        tally = await run(share);
      } catch (error) {
        tally = newTally(name, "(did not run to its end)");
        tally.failures.push(`${name}: the workload stopped: ${(error as Error).stack}`);
        console.log(`[crash] ${name} stopped: ${(error as Error).message}`);
      }
      tally.seconds = (performance.now() - began) / 1000;
      tallies.push(tally);
    }
  } finally {
    await killEverything();
    Deno.removeSignalListener("SIGINT", interrupted);
    Deno.removeSignalListener("SIGTERM", interrupted);
    await Deno.remove(ctx.tmp, { recursive: true }).catch(() => {});
  }
  const seconds = (performance.now() - started) / 1000;
  const body = report(tallies, seed, quota, seconds, code);
  await writeSection("crash", await runInfo("crash"), body);
  console.log(body);
  if (ctx.kept.length) console.log(`[crash] stores kept for inspection:\n${ctx.kept.join("\n")}`);
}
