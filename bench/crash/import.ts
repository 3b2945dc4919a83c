/**
 * The `import` workload: `import FILE.jsonl` killed, then run again.
 * @module
 */
import { join } from "node:path";
import { newStore } from "../cli.ts";
import { afterKill } from "./after_kill.ts";
import { brief, cairn, runAgain } from "./cairn.ts";
import { listAll } from "./checks.ts";
import type { Context } from "./context.ts";
import { killCommand } from "./kill.ts";
import { importRecords, writeJsonl } from "./memories.ts";
import { type Check, logRound, newTally, type Tally } from "./tally.ts";

/** The `import` workload: its tally. */
export async function benchImport(ctx: Context, quota: number): Promise<Tally> {
  const t = newTally(
    "import",
    "`import FILE.jsonl` (100 records with ids) killed, then the same import again; acked = " +
      "every record of a file whose import printed its summary",
  );
  const dir = join(ctx.tmp, "import");
  let store = await newStore(join(dir, "store"));
  const project = "imp";
  let acked = new Map<string, string>(); // record id -> content
  const seedFile = join(dir, "seed.jsonl");
  const seed = importRecords(ctx, "seed", 100, project);
  await writeJsonl(seedFile, seed);
  const calibration = await cairn(store, ["import", seedFile]);
  if (calibration.code !== 0) {
    t.failures.push(`the first import failed: ${brief(calibration.err)}`);
    return t;
  }
  for (const r of seed) acked.set(r.id, r.content);
  let estimate = calibration.ms;
  const checkImported = async (mustHave: Map<string, string>): Promise<Check> => {
    const listed = await listAll(store, project);
    const times = new Map<string, number>();
    for (const m of listed) {
      if (m.external_id !== undefined) {
        times.set(m.external_id, (times.get(m.external_id) ?? 0) + 1);
      }
    }
    const lost: string[] = [];
    const duplicated: string[] = [];
    for (const [id, content] of mustHave) {
      const memory = listed.find((m) => m.external_id === id);
      if (!memory) lost.push(`imported record ${id} is gone`);
      else if (memory.content !== content) lost.push(`imported record ${id} has other content`);
    }
    for (const [id, n] of times) if (n > 1) duplicated.push(`record ${id} is there ${n} times`);
    return { checked: mustHave.size, lost, duplicated };
  };
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const file = join(dir, `round-${round}.jsonl`);
    const records = importRecords(ctx, `r${round}`, 100, project);
    await writeJsonl(file, records);
    const killed = await killCommand(
      ctx,
      t,
      store,
      ["import", file],
      estimate,
      "import",
      (group) => group.code === 0 && /^imported \d+/m.test(group.out),
    );
    const { delay, finished } = killed;
    estimate = killed.estimate;
    if (finished) {
      for (const r of records) acked.set(r.id, r.content);
      t.acked += records.length;
    }
    logRound(t, round, quota, `killed after ${delay} ms${finished ? " (had finished)" : ""}`);
    const opened = await afterKill(
      t,
      ctx,
      store,
      `import round ${round}`,
      () => checkImported(acked),
      async () => {
        const failed = await runAgain(store, ["import", file]);
        if (failed.length) return failed;
        for (const r of records) acked.set(r.id, r.content);
        const after = await checkImported(acked);
        return [...after.lost, ...(after.duplicated ?? [])];
      },
    );
    if (!opened) {
      store = await newStore(join(dir, `store-${round}`));
      acked = new Map();
    }
  }
  return t;
}
