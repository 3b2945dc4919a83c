/**
 * What the CLI's `--watch` commands share: the loop that hands batches of
 * changes over until SIGINT or SIGTERM, and reading what the store's owner
 * answered a batch relayed to it.
 * @module
 */
import { watchBatches, type WatchBatchOptions } from "../ingest/watch_batches.ts";
import { UserError } from "../errors.ts";
import type { CommandContext } from "./command.ts";
import type { CliAnswer } from "./owner_cli.ts";
import { untilStopped } from "./signals.ts";

/**
 * Says that `target` is watched, hands `watcher`'s batches to `options.run`
 * until SIGINT or SIGTERM (the batch under way finishes) or the watcher ends,
 * then says it stopped. Resolves to the exit code.
 */
export async function watchUntilStopped(
  context: CommandContext,
  watcher: Deno.FsWatcher,
  target: string,
  options: WatchBatchOptions,
): Promise<number> {
  context.out(`watching ${target} for changes (Ctrl-C to stop)`);
  const done = watchBatches(watcher, options);
  let ended = false;
  await untilStopped(0, () => Date.now(), done.finally(() => (ended = true)));
  // Stopped by a signal: the watcher ends, once the batch under way is done.
  if (!ended) watcher.close();
  await done;
  context.out("stopped watching");
  return 0;
}

/**
 * The standard output of `command` run in the store's owner, its warnings
 * passed on; a failure comes back as a {@linkcode UserError} with the owner's words.
 */
export function ownerOutput(context: CommandContext, command: string, answer: CliAnswer): string {
  if (answer.code !== 0) {
    const said = answer.err.map((line) => line.replace(`cairn ${command}: `, "")).join("\n");
    throw new UserError(
      said || `the store's owner failed to ${command} (exit code ${answer.code})`,
    );
  }
  answer.err.forEach((line) => context.err(line));
  return answer.out.join("\n");
}
