/**
 * Killing: a bash loop of cairn commands, or a single cairn command, at a random moment.
 * @module
 */
import { join } from "node:path";
import { startCairn } from "./cairn.ts";
import type { Context } from "./context.ts";
import { lastLines, lines } from "./output.ts";
import { Group, MAIN, sleep, sq } from "./processes.ts";
import { bump, type Tally } from "./tally.ts";

/** Runs `steps` as a bash loop on `store` and SIGKILLs its process group after `delayMs`. */
export async function killLoop(
  ctx: Context,
  store: string,
  steps: string[],
  delayMs: number,
): Promise<{ out: string; err: string; running: boolean }> {
  const script = join(ctx.tmp, "loop.sh");
  await Deno.writeTextFile(
    script,
    'set -u\nc() { "$DENO" run --allow-all --quiet "$MAIN" --store "$S" "$@"; }\n' +
      steps.join("\n") + "\n",
  );
  const group = new Group("bash", [script], { DENO: Deno.execPath(), MAIN, S: store });
  await sleep(delayMs);
  const running = await group.kill();
  return { out: group.out, err: group.err, running };
}

/** A loop step whose success bash acknowledges with `ACK k`; the loop stops at a failure. */
export function ackStep(k: number, args: string[]): string {
  return `c ${args.map(sq).join(" ")} >/dev/null && echo "ACK ${k}" || { echo "FAIL ${k} $?"; ` +
    "exit 3; }";
}

/** How many steps the loop acknowledged; its failures are counted on the tally. */
export function loopAcks(t: Tally, run: { out: string; err: string }): number {
  let acks = 0;
  for (const line of lines(run.out)) {
    if (/^ACK \d+$/.test(line)) acks++;
    if (/^FAIL \d+ \d+$/.test(line)) {
      t.commandErrors++;
      bump(
        t.commandErrorSamples,
        `${line.replace(/\d+ (\d+)$/, "k, exit $1")}: ${lastLines(run.err)}`,
      );
    }
  }
  return acks;
}

/** The kill delay of a loop: 50 ms to 3 s after it starts. */
export const loopDelay = (ctx: Context) => ctx.rng.int(50, 3000);

/** The kill delay of a single command that takes about `ms` when left alone. */
export const commandDelay = (ctx: Context, ms: number) =>
  ctx.rng.int(50, Math.max(300, Math.round(0.95 * ms)));

/** What {@linkcode killCommand} saw of the command it killed. */
export interface Killed {
  group: Group;
  /** How long after its start the command was killed. */
  delay: number;
  /** Whether the command was still running at the kill. */
  running: boolean;
  /** Whether it had finished first, and `succeeded`. */
  finished: boolean;
  /** The next duration estimate: the run's own, when it had finished first. */
  estimate: number;
}

/**
 * Starts `cairn ARGS` on `store` and SIGKILLs it at a random moment of `estimate` ms, counting
 * the kill (or the finished run, and its failure as a command error named `name`).
 */
export async function killCommand(
  ctx: Context,
  t: Tally,
  store: string,
  args: string[],
  estimate: number,
  name: string,
  succeeded: (group: Group) => boolean = (group) => group.code === 0,
): Promise<Killed> {
  const delay = commandDelay(ctx, estimate);
  const group = startCairn(store, args);
  await sleep(delay);
  const running = await group.kill();
  if (running) t.kills++;
  else {
    t.finishedFirst++;
    estimate = group.ranMs; // the next kill within what such a run really takes
  }
  const finished = !running && succeeded(group);
  if (!running && !finished) {
    t.commandErrors++;
    bump(t.commandErrorSamples, `${name} exit ${group.code}: ${lastLines(group.err)}`);
  }
  return { group, delay, running, finished, estimate };
}
