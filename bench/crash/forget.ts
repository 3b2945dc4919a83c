/**
 * The `forget` and `forget --purge` workloads: a loop of `forget ID` killed.
 * @module
 */
import { join } from "node:path";
import { newStore } from "../cli.ts";
import { afterKill } from "./after_kill.ts";
import type { Context } from "./context.ts";
import { ackStep, killLoop, loopAcks, loopDelay } from "./kill.ts";
import { checkMemories, importSome } from "./memories.ts";
import { logRound, newTally, type Tally } from "./tally.ts";

/** The `forget` (or, with `purge`, `forget --purge`) workload: its tally. */
export async function benchForget(ctx: Context, quota: number, purge: boolean): Promise<Tally> {
  const name = purge ? "forget --purge" : "forget";
  const t = newTally(
    name,
    `a bash loop of \`forget ID${purge ? " --purge" : ""}\` over imported memories; acked = ` +
      `each ${purge ? "purge" : "forget"} that exited 0 (every other memory must stay as it was)`,
  );
  const project = purge ? "pg" : "fg";
  const store = await newStore(join(ctx.tmp, project, "store"));
  const alive = await importSome(ctx, store, purge ? 80 : 150, project);
  const forgotten = new Set<string>();
  const purged = new Map<string, string>();
  const expected = new Map(alive); // what list must show (forgotten ones included)
  const queue = [...alive.keys()];
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    if (queue.length === 0) {
      t.notes.push(`${name}: ran out of memories to forget after ${round - 1} rounds`);
      break;
    }
    t.rounds++;
    const plan = queue.slice(0, 30);
    const delay = loopDelay(ctx);
    const run = await killLoop(
      ctx,
      store,
      plan.map((id, k) => ackStep(k, ["forget", id, ...(purge ? ["--purge"] : [])])),
      delay,
    );
    if (run.running) t.kills++;
    else t.finishedFirst++;
    const acks = loopAcks(t, run);
    t.acked += acks;
    for (const id of plan.slice(0, acks)) {
      queue.shift();
      if (purge) {
        purged.set(id, expected.get(id)!);
        expected.delete(id);
      } else forgotten.add(id);
    }
    const running = plan[acks];
    const inflight = running
      ? { id: running, ...(purge ? { purge: true } : { forget: true }) }
      : undefined;
    logRound(t, round, quota, `killed after ${delay} ms, ${acks} acknowledged`);
    const opened = await afterKill(t, ctx, store, `${name} round ${round}`, async () => {
      const found = await checkMemories(store, expected, {
        project,
        forgotten,
        purged,
        ...(inflight ? { inflight } : {}),
      });
      if (running) {
        // Whatever the running command left is the state to build on.
        const memory = found.memories.get(running);
        if (!memory && purge) {
          purged.set(running, expected.get(running)!);
          expected.delete(running);
          queue.shift();
        } else if (memory?.forgotten_at !== undefined) {
          if (purge) {
            // A purge cut between its two steps: the next open finishes it (status did).
            t.notes.push(`${name}: ${running} was left forgotten but not yet purged`);
          }
          forgotten.add(running);
          queue.shift();
        }
      }
      return found;
    });
    if (!opened) break;
  }
  return t;
}
