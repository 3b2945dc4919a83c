/**
 * The `ingest claude` workload: a loop appending turns and ingesting the transcript, killed.
 * @module
 */
import { join } from "node:path";
import { newStore } from "../cli.ts";
import { afterKill } from "./after_kill.ts";
import { runAgain } from "./cairn.ts";
import type { Context } from "./context.ts";
import { ackStep, killLoop, loopAcks, loopDelay } from "./kill.ts";
import { sq } from "./processes.ts";
import { claudeTurn, findTurns } from "./sessions.ts";
import { logRound, newTally, type Tally } from "./tally.ts";

/** The `ingest claude` workload: its tally. */
export async function benchIngest(ctx: Context, quota: number): Promise<Tally> {
  const t = newTally(
    "ingest claude",
    "a bash loop appending a turn to a transcript then `ingest claude FILE`; acked = each turn " +
      "whose ingest exited 0; then the same ingest again must find every turn",
  );
  const dir = join(ctx.tmp, "ingest");
  const cwd = join(dir, "project");
  await Deno.mkdir(cwd, { recursive: true });
  const store = await newStore(join(dir, "store"));
  const session = ctx.rng.uuid();
  const transcript = join(dir, `${session}.jsonl`);
  await Deno.writeTextFile(transcript, "");
  let linesWritten = 0;
  let at = 0;
  const acked: Array<{ marker: string; id: string }> = [];
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const plan: Array<{ marker: string; id: string; file: string }> = [];
    for (let k = 0; k < 20; k++) {
      const marker = ctx.rng.word(10);
      const file = join(dir, `turn-${round}-${k}.jsonl`);
      await Deno.writeTextFile(file, claudeTurn(ctx, session, cwd, marker, at += 3));
      plan.push({ marker, id: `${session}:${linesWritten + 3 * k}`, file });
    }
    const steps = plan.map((p, k) =>
      `cat ${sq(p.file)} >> ${sq(transcript)} && ` +
      ackStep(k, ["ingest", "claude", transcript, "--json"])
    );
    const delay = loopDelay(ctx);
    const run = await killLoop(ctx, store, steps, delay);
    if (run.running) t.kills++;
    else t.finishedFirst++;
    const acks = loopAcks(t, run);
    t.acked += acks;
    acked.push(...plan.slice(0, acks));
    const text = await Deno.readTextFile(transcript);
    if (!text.endsWith("\n") && text.length > 0) {
      t.notes.push(`ingest round ${round}: the kill cut a transcript line (the harness's append)`);
      await Deno.writeTextFile(transcript, "\n", { append: true });
    }
    const total = (await Deno.readTextFile(transcript)).split("\n").length - 1;
    const appended = plan.slice(0, Math.floor((total - linesWritten) / 3));
    linesWritten = total;
    logRound(t, round, quota, `killed after ${delay} ms, ${acks} ingests acknowledged`);
    const opened = await afterKill(
      t,
      ctx,
      store,
      `ingest round ${round}`,
      async () => ({ checked: acked.length, lost: await findTurns(store, dir, acked) }),
      async () => {
        const args = ["ingest", "claude", transcript, "--json"];
        const failed = await runAgain(store, args, `ingest claude ${transcript}`);
        if (failed.length) return failed;
        for (const turn of appended.slice(acks)) acked.push(turn);
        return await findTurns(store, dir, acked);
      },
    );
    for (const p of plan) await Deno.remove(p.file);
    if (!opened) break;
  }
  return t;
}
