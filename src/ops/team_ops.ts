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
import type { TeamSyncState } from "../service/cairn.ts";

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
  async run(cairn): Promise<Synced> {
    const team = await requireTeamConfig(cairn.store.dir);
    const report = await (await teamSyncFor(cairn.store, team)).pass();
    const moved = cairn.servedBy?.team?.()?.lastMoved;
    return { report, ...(moved ? { ownerMoved: moved } : {}) };
  },
  render: ({ report, ownerMoved }: Synced) => ({
    text: describe(report) +
      (report.published + report.applied === 0 && ownerMoved
        ? `\n> the owner syncs by itself every few seconds: its last pass that moved anything, at ${
          ownerMoved.at.slice(11, 19)
        }, published ${ownerMoved.published} and took in ${ownerMoved.applied}`
        : ""),
    data: { published: report.published, applied: report.applied },
    json: report,
  }),
});

/** A pass, and the owner's own last pass that moved anything when it runs the command. */
interface Synced {
  report: SyncReport;
  ownerMoved?: NonNullable<TeamSyncState["lastMoved"]>;
}

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
