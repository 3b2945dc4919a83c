/**
 * `cairn sync`: the `sync` operation once, or a pass every few seconds until
 * stopped (`--watch`, which stays in the calling process and sends each pass
 * to the store's owner while one answers).
 * @module
 */
import { UserError } from "../errors.ts";
import { requireTeamConfig } from "../team/config.ts";
import { TeamUnreachable } from "../team/unreachable.ts";
import type { SyncReport } from "../team/sync.ts";
import { sync } from "../ops/team_ops.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, type CommandContext, UsageError } from "./command.ts";
import { answerFromOwner } from "./owner_cli.ts";
import { untilStopped } from "./signals.ts";
import { ownerOutput } from "./watch_command.ts";
import { withCairn } from "./with_cairn.ts";

const OPTIONS = {
  watch: { type: "boolean" },
  interval: { type: "string" },
  json: { type: "boolean" },
} as const;

/** `cairn sync`: one pass with the team's stream, or passes until stopped. */
export const syncCommand: Command = {
  name: sync.command!,
  summary: sync.summary,
  usage: "cairn sync [--watch [--interval SECONDS]] [--json]\n\n" +
    "  Publishes what this store wrote in the projects config.json's `team` section shares\n" +
    "  and has not published yet (in order, each event once), then appends what the other\n" +
    "  members wrote to this store's log. Offline, the store works alone and the next sync\n" +
    "  catches up.\n" +
    "  --watch     keep syncing, a pass every --interval seconds (default 1), until Ctrl-C;\n" +
    "              an unreachable server is said once and tried again\n" +
    "  --json      the pass's counts as JSON",
  // A store to sync has a config.json naming its team: a missing one is a mistyped --store.
  needsStore: () => true,
  check(args) {
    parseInterval(parseCommandArgs(args, OPTIONS).values.interval);
  },
  async run(context) {
    const { values } = parseCommandArgs(context.args, OPTIONS);
    const interval = parseInterval(values.interval);
    // Said before the store opens: a store with no team has nothing to sync.
    await requireTeamConfig(context.storeDir);
    if (!values.watch) {
      const rendered = sync.render(await pass(context), {});
      context.out(values.json ? JSON.stringify(rendered.json) : rendered.text);
      return 0;
    }
    return await watch(context, interval, values.json === true);
  },
};

function parseInterval(text: string | undefined): number {
  if (text === undefined) return 1;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds < 0.1 || seconds > 3600) {
    throw new UsageError(`--interval takes seconds from 0.1 to 3600, not "${text}"`);
  }
  return seconds;
}

/** One pass, on the store the command runs on (the owner's, or opened here for the pass). */
function pass(context: CommandContext): ReturnType<typeof sync.run> {
  return withCairn(context, (cairn) => sync.run(cairn, {}, context));
}

/**
 * Passes every `interval` seconds until SIGINT or SIGTERM. Each pass goes to
 * the store's owner while one answers, else runs here on the store opened for
 * that pass only, so other commands can use it in between.
 */
async function watch(context: CommandContext, interval: number, json: boolean): Promise<number> {
  let stopped = false;
  const stop = untilStopped(0, () => Date.now()).then(() => (stopped = true));
  let offline = false;
  context.out(`syncing every ${interval} s (Ctrl-C to stop)`);
  while (!stopped) {
    try {
      const report = await passInOwner(context) ?? (await pass(context)).report;
      if (offline) context.err("cairn sync: the team's server answers again");
      offline = false;
      if (json) context.out(JSON.stringify(report));
      else if (report.published + report.applied + report.folded > 0) {
        context.out(sync.render({ report }, {}).text);
      }
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      if (!offline || !(error instanceof TeamUnreachable)) {
        context.err(`cairn sync: ${error.message}`);
      }
      offline = error instanceof TeamUnreachable;
    }
    await Promise.race([stop, new Promise((resolve) => setTimeout(resolve, interval * 1000))]);
  }
  context.out("stopped syncing");
  return 0;
}

/** One pass in the store's owner; undefined when none answers. */
async function passInOwner(context: CommandContext): Promise<SyncReport | undefined> {
  const answer = await answerFromOwner(context.storeDir, {
    args: ["sync", "--json"],
    cwd: context.cwd,
    roots: context.roots,
  });
  if (!answer) return undefined;
  if (answer.code !== 0 && answer.err.some((line) => line.includes("no NATS server"))) {
    throw new TeamUnreachable(answer.err.join(" ").replace(/^cairn sync: /, ""));
  }
  return JSON.parse(ownerOutput(context, "sync", answer)) as SyncReport;
}
