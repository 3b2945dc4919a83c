/**
 * The `remember` workload: a loop of `remember --json` killed.
 * @module
 */
import { join } from "node:path";
import { newStore } from "../cli.ts";
import { afterKill } from "./after_kill.ts";
import type { Context } from "./context.ts";
import { killLoop, loopAcks, loopDelay } from "./kill.ts";
import { checkMemories, memoryText, remembered } from "./memories.ts";
import { sq } from "./processes.ts";
import { logRound, newTally, type Tally } from "./tally.ts";

/** The `remember` workload: its tally. */
export async function benchRemember(ctx: Context, quota: number): Promise<Tally> {
  const t = newTally(
    "remember",
    "a bash loop of sequential `remember --json`; acked = every id printed",
  );
  let store = await newStore(join(ctx.tmp, "remember", "store"));
  let expected = new Map<string, string>();
  let n = 0;
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const texts = Array.from({ length: 30 }, () => memoryText(ctx, ++n));
    // A failure does not stop this loop: every id printed counts.
    const steps = texts.map((text, k) => `c remember ${sq(text)} --json || echo "FAIL ${k} $?"`);
    const delay = loopDelay(ctx);
    const run = await killLoop(ctx, store, steps, delay);
    if (run.running) t.kills++;
    else t.finishedFirst++;
    loopAcks(t, run);
    const ids = remembered(run.out);
    for (const { id, content } of ids) {
      if (!texts.includes(content)) {
        t.failures.push(`remember round ${round}: ${id} was stored as "${content}"`);
      }
      expected.set(id, content);
    }
    t.acked += ids.length;
    logRound(t, round, quota, `killed after ${delay} ms, ${ids.length} ids acknowledged`);
    const opened = await afterKill(
      t,
      ctx,
      store,
      `remember round ${round}`,
      () => checkMemories(store, expected),
    );
    if (!opened) {
      store = await newStore(join(ctx.tmp, "remember", `store-${round}`));
      expected = new Map();
    }
  }
  return t;
}
