/**
 * The `index` workload: `index FOLDER` killed, then run again.
 * @module
 */
import { join } from "node:path";
import { newStore } from "../cli.ts";
import { afterKill } from "./after_kill.ts";
import { brief, cairn, runAgain } from "./cairn.ts";
import { CodeTree, missingFunctions } from "./code_tree.ts";
import type { Context } from "./context.ts";
import { killCommand } from "./kill.ts";
import { logRound, newTally, type Tally } from "./tally.ts";

/** The `index` workload: its tally. */
export async function benchIndex(ctx: Context, quota: number): Promise<Tally> {
  const t = newTally(
    "index",
    "`index FOLDER` (120 Python files, 40 rewritten and 1 added before each run) killed, then " +
      "`index` again; acked = every function of the last finished run in a file not rewritten " +
      "since",
  );
  const dir = join(ctx.tmp, "index");
  const tree = new CodeTree(join(dir, "crashcode"), ctx);
  let serial = 0;
  for (let i = 0; i < 120; i++) await tree.write(`pkg/mod_${i}.py`, ++serial);
  const store = await newStore(join(dir, "store"));
  const project = "crashcode";
  const indexArgs = ["index", tree.root, "--project", project, "--json"];
  const calibration = await cairn(store, indexArgs);
  if (calibration.code !== 0) {
    t.failures.push(`the first index failed: ${brief(calibration.err)}`);
    return t;
  }
  let indexed = new Map(tree.files);
  // About a third of the files to embed again, and the process's start.
  let estimate = 1_000 + calibration.ms * 41 / 120;
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const changed = new Set<string>();
    const candidates = [...tree.files.keys()].filter((path) => path.startsWith("pkg/mod_"));
    while (changed.size < 40) changed.add(ctx.rng.pick(candidates));
    for (const path of changed) await tree.write(path, ++serial);
    const added = `pkg/new_${round}.py`;
    await tree.write(added, ++serial);
    changed.add(added);
    const ackedFunctions = tree.functions(
      new Map([...indexed].filter(([path]) => !changed.has(path))),
    );
    const killed = await killCommand(ctx, t, store, indexArgs, estimate, "index");
    const { delay, finished } = killed;
    estimate = killed.estimate;
    const mustFind = finished ? tree.functions() : ackedFunctions;
    if (finished) {
      indexed = new Map(tree.files);
      t.acked += mustFind.length;
    }
    logRound(t, round, quota, `killed after ${delay} ms${finished ? " (had finished)" : ""}`);
    const opened = await afterKill(
      t,
      ctx,
      store,
      `index round ${round}`,
      async () => ({
        checked: mustFind.length,
        lost: (await missingFunctions(store, dir, project, mustFind)).map((name) =>
          `function ${name} (indexed by a finished run) is not found`
        ),
      }),
      async () => {
        const failed = await runAgain(store, indexArgs, `index ${tree.root}`);
        if (failed.length) return failed;
        indexed = new Map(tree.files);
        return (await missingFunctions(store, dir, project, tree.functions())).map((name) =>
          `function ${name} is not found after the index finished`
        );
      },
    );
    if (!opened) break;
  }
  return t;
}
