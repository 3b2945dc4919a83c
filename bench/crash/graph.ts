/**
 * The `graph` workload: a loop of `graph` subcommands killed; the whole graph compared.
 * @module
 */
import { join } from "node:path";
import { newStore } from "../cli.ts";
import { afterKill } from "./after_kill.ts";
import { graphFacts } from "./checks.ts";
import type { Context } from "./context.ts";
import {
  applyGraphOp,
  entityFact,
  graphArgs,
  graphFromFacts,
  type GraphState,
  graphStateFacts,
  observationFact,
  planGraph,
} from "./graph_model.ts";
import { ackStep, killLoop, loopAcks, loopDelay } from "./kill.ts";
import { logRound, newTally, type Tally } from "./tally.ts";

/** The `graph` workload: its tally. */
export async function benchGraph(ctx: Context, quota: number): Promise<Tally> {
  const t = newTally(
    "graph",
    "a bash loop of `graph add-entity|observe|relate|delete-observation|unrelate|" +
      "delete-entity`; acked = each operation that exited 0; the whole graph is compared",
  );
  const store = await newStore(join(ctx.tmp, "graph", "store"));
  let state: GraphState = { entities: new Map(), relations: new Set() };
  const serial = { n: 0 };
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const plan = planGraph(ctx, state, 30, serial);
    const delay = loopDelay(ctx);
    const run = await killLoop(ctx, store, plan.map((op, k) => ackStep(k, graphArgs(op))), delay);
    if (run.running) t.kills++;
    else t.finishedFirst++;
    const acks = loopAcks(t, run);
    t.acked += acks;
    for (const op of plan.slice(0, acks)) state = applyGraphOp(state, op);
    const inflight = plan[acks];
    const acked = graphStateFacts(state);
    const withInflight = inflight ? graphStateFacts(applyGraphOp(state, inflight)) : acked;
    logRound(t, round, quota, `killed after ${delay} ms, ${acks} operations acknowledged`);
    const opened = await afterKill(t, ctx, store, `graph round ${round}`, async () => {
      const actual = await graphFacts(store);
      const lost: string[] = [];
      for (const fact of acked) {
        if (!actual.has(fact) && withInflight.has(fact)) lost.push(`${fact} is missing`);
      }
      for (const fact of actual) {
        if (!acked.has(fact) && !withInflight.has(fact)) {
          lost.push(`${fact} is there, though acknowledged operations removed or never made it`);
        }
      }
      // Only the running operation may be half there: an entity made without its observation.
      if (inflight?.op === "add" && actual.has(entityFact(inflight.name, inflight.type))) {
        const observation = observationFact(inflight.name, inflight.observation);
        if (!actual.has(observation)) {
          lost.push(`the running add-entity left ${inflight.name} half made`);
        }
      }
      state = graphFromFacts(actual);
      return { checked: acked.size, lost };
    });
    if (!opened) break;
  }
  return t;
}
