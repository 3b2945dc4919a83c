import type { IndexReport } from "../service/code_index.ts";
import { WATCH_MAX_WAIT_MS, WATCH_QUIET_MS, watchedPath } from "../service/code_watch.ts";
import type { CommandContext } from "./command.ts";
import { answerFromOwner } from "./owner_cli.ts";
import { ownerOutput, watchUntilStopped } from "./watch_command.ts";
import { withCairn } from "./with_cairn.ts";

/** What to index: a folder, and the project's name when the user gave one. */
export interface IndexTarget {
  path: string;
  project?: string;
}

/**
 * `cairn index PATH --watch`: indexes the folder, then again after each batch
 * of changes, until SIGINT or SIGTERM. The watching stays in this process;
 * each run goes to the store's owner while one answers, else runs here on the
 * store opened for that run only, so other commands can use it in between.
 * `show` prints a run's summary.
 */
export async function watchIndex(
  context: CommandContext,
  target: IndexTarget,
  settle: boolean,
  show: (report: IndexReport) => void,
): Promise<number> {
  // Watch before the first run, so that no change made meanwhile is missed.
  const watcher = Deno.watchFs(target.path, { recursive: true });
  let project = target.project;
  const run = async (first: boolean) => {
    const asked = { path: target.path, ...(project ? { project } : {}) };
    const report = await indexInOwner(context, asked, settle) ??
      await withCairn(context, (cairn) => cairn.code.index(asked), { settle, warn: context.err });
    // Later runs keep the name the first one chose, wherever they run.
    project ??= report.project;
    if (first || report.indexed + report.removed > 0) show(report);
  };
  const reportError = (error: Error) => context.err(`cairn index: ${error.message}`);
  await run(true).catch(reportError);
  return await watchUntilStopped(context, watcher, target.path, {
    quietMs: WATCH_QUIET_MS,
    maxWaitMs: WATCH_MAX_WAIT_MS,
    accept: watchedPath(target.path, context.storeDir),
    run: () => run(false),
    onError: reportError,
  });
}

/**
 * Indexes `target` in the store's owner and returns its report; undefined when
 * no owner answers. The owner's refusal comes back as a {@linkcode UserError}.
 */
async function indexInOwner(
  context: CommandContext,
  target: IndexTarget,
  settle: boolean,
): Promise<IndexReport | undefined> {
  const args = [
    "index",
    target.path,
    "--json",
    ...(target.project ? ["--project", target.project] : []),
  ];
  const answer = await answerFromOwner(context.storeDir, {
    args: settle ? args : [...args, "--no-wait"],
    cwd: context.cwd,
    roots: context.roots,
  });
  if (!answer) return undefined;
  return JSON.parse(ownerOutput(context, "index", answer)) as IndexReport;
}
