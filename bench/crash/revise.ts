/**
 * The `revise` workload: a loop of `revise ID TEXT` killed.
 * @module
 */
import { join } from "node:path";
import { newStore } from "../cli.ts";
import { afterKill } from "./after_kill.ts";
import type { Context } from "./context.ts";
import { ackStep, killLoop, loopAcks, loopDelay } from "./kill.ts";
import { checkMemories, rememberSome } from "./memories.ts";
import { logRound, newTally, type Tally } from "./tally.ts";

/** The `revise` workload: its tally. */
export async function benchRevise(ctx: Context, quota: number): Promise<Tally> {
  const t = newTally(
    "revise",
    "a bash loop of `revise ID TEXT` over 4 memories; acked = each revision that exited 0",
  );
  const store = await newStore(join(ctx.tmp, "revise", "store"));
  const current = await rememberSome(ctx, store, 4, "rev");
  const ids = [...current.keys()];
  let n = 0;
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const plan = Array.from({ length: 30 }, () => ({
      id: ctx.rng.pick(ids),
      content: `Revision ${++n}: the ${ctx.rng.word()} cache now holds ${
        ctx.rng.int(2, 900)
      } ${ctx.rng.word()} entries`,
    }));
    const delay = loopDelay(ctx);
    const run = await killLoop(
      ctx,
      store,
      plan.map((p, k) => ackStep(k, ["revise", p.id, p.content])),
      delay,
    );
    if (run.running) t.kills++;
    else t.finishedFirst++;
    const acks = loopAcks(t, run);
    t.acked += acks;
    for (const p of plan.slice(0, acks)) current.set(p.id, p.content);
    const inflight = plan[acks];
    logRound(t, round, quota, `killed after ${delay} ms, ${acks} revisions acknowledged`);
    const opened = await afterKill(t, ctx, store, `revise round ${round}`, async () => {
      const found = await checkMemories(store, current, {
        project: "rev",
        ...(inflight ? { inflight } : {}),
      });
      // The revision that was running may have landed: it is then the state to build on.
      if (inflight && found.memories.get(inflight.id)?.content === inflight.content) {
        current.set(inflight.id, inflight.content);
      }
      return found;
    });
    if (!opened) break; // its memories are gone with it; the report says so
  }
  return t;
}
