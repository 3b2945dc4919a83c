/**
 * `sync`: one pass with the team's stream (config.json's `team`): publish
 * what this store wrote in the shared projects and has not published yet,
 * then take in what the other members wrote.
 * @module
 */
import { z } from "zod";
import { requireTeamConfig } from "../team/config.ts";
import { type SyncReport, teamSyncFor } from "../team/sync.ts";
import { operation } from "./operation.ts";

/** `sync`: a pass with the team (the command's `--watch` repeats it). */
export const sync = operation({
  command: "sync",
  summary: "publish this store's shared memories and graph to its team, take in the others' " +
    "(config.json `team`)",
  description: "Sync the store with its team: publish what it shares, take in the others'.",
  core: false,
  writes: true,
  input: {},
  output: { published: z.number(), applied: z.number() },
  async run(cairn): Promise<SyncReport> {
    const team = await requireTeamConfig(cairn.store.dir);
    return await (await teamSyncFor(cairn.store, team)).pass();
  },
  render: (report: SyncReport) => ({
    text: describe(report),
    data: { published: report.published, applied: report.applied },
    json: report,
  }),
});

/** One line for a person: what moved, and what still waits. */
function describe(report: SyncReport): string {
  const parts = [
    `published ${report.published}`,
    `took in ${report.applied} from others`,
    ...(report.folded ? [`${report.folded} duplicate(s) folded`] : []),
    ...(report.reapplied ? [`${report.reapplied} own change(s) applied again to stay last`] : []),
    ...(report.pending ? [`${report.pending} still to publish`] : []),
    ...(report.tooLarge
      ? [`${report.tooLarge} too large for the server's max_payload, not published`]
      : []),
  ];
  return `synced as ${report.member}: ${parts.join(", ")} (${Math.round(report.ms)} ms)`;
}
