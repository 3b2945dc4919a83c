/**
 * The `compact`, `replay` and `delete-project` workloads: the command killed on a copy of the
 * prepared store, then run again.
 * @module
 */
import { join } from "node:path";
import { afterKill } from "./after_kill.ts";
import { brief, cairn, cairnOk, runAgain } from "./cairn.ts";
import type { Context } from "./context.ts";
import { killCommand } from "./kill.ts";
import { logRound, newTally, type Tally } from "./tally.ts";
import { checkTemplate, copyStore, type Template } from "./template.ts";

/** The `compact`, `replay` or `delete-project` workload on copies of the template: its tally. */
export async function benchOnTemplate(
  ctx: Context,
  template: () => Promise<Template>,
  command: "compact" | "replay" | "delete-project",
  quota: number,
): Promise<Tally> {
  const args = command === "delete-project" ? ["delete-project", "tplcode"] : [command];
  const t = newTally(
    command,
    `\`${args.join(" ")}\` on a copy of a store of 150 memories (revised, forgotten, purged), ` +
      "a graph, 300 indexed files and a session, killed; then run again; acked = all of it" +
      (command === "delete-project" ? " (the code: gone once the command printed so)" : ""),
  );
  const tpl = await template();
  const dir = join(ctx.tmp, command);
  await Deno.mkdir(dir, { recursive: true });
  const calibrationStore = join(dir, "calibration");
  await copyStore(tpl.store, calibrationStore);
  const calibration = await cairn(calibrationStore, args);
  await Deno.remove(calibrationStore, { recursive: true });
  if (calibration.code !== 0) {
    t.failures.push(`\`cairn ${args.join(" ")}\` failed on the store: ${brief(calibration.err)}`);
    return t;
  }
  t.notes.push(`${command}: left alone it took ${(calibration.ms / 1000).toFixed(1)} s`);
  let estimate = calibration.ms;
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const store = join(dir, `round-${round}`);
    await copyStore(tpl.store, store);
    const killed = await killCommand(ctx, t, store, args, estimate, command);
    const { delay, finished } = killed;
    estimate = killed.estimate;
    if (finished) t.acked++;
    logRound(t, round, quota, `killed after ${delay} ms${finished ? " (had finished)" : ""}`);
    const codeState = command !== "delete-project" ? "code" : finished ? "no code" : "either";
    const opened = await afterKill(
      t,
      ctx,
      store,
      `${command} round ${round}`,
      () => checkTemplate(tpl, store, codeState),
      async () => {
        if (command === "delete-project") {
          const projects = await cairnOk(store, ["projects", "--json"]);
          const listed = (JSON.parse(projects.out) as { projects: Array<{ name?: string }> })
            .projects.some((p) => JSON.stringify(p).includes('"tplcode"'));
          if (listed) {
            const failed = await runAgain(store, args);
            if (failed.length) return failed;
          }
          return (await checkTemplate(tpl, store, "no code")).lost;
        }
        return await runAgain(store, args);
      },
    );
    if (opened) await Deno.remove(store, { recursive: true });
  }
  return t;
}
