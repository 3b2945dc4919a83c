import type { LogRecovery } from "../../events/log.ts";
import { type Cairn, openCairn } from "../service/cairn.ts";
import type { CommandContext } from "./command.ts";
import { truncationNote } from "./truncation_note.ts";

/** Options for {@linkcode withCairn}. */
export interface WithCairnOptions {
  /**
   * Wait for the background projections (vectors) to take in the changes
   * before closing, when the store is opened here; the store's owner goes on
   * computing them after the command, so it never waits.
   */
  settle?: boolean;
  /** Where warnings go; default standard error. */
  warn?: (line: string) => void;
  /** Start loading the embedding model while the store opens (the work will embed). */
  warmModel?: boolean;
}

/**
 * Opens the store, says what opening it repaired, runs `work`, says how many
 * texts the model cut to fit, and always closes the store again. Inside the
 * store's owner (`context.owner`), `work` runs on the owner's open store.
 */
export async function withCairn<T>(
  context: Pick<CommandContext, "storeDir" | "owner">,
  work: (cairn: Cairn) => Promise<T>,
  options: WithCairnOptions = {},
): Promise<T> {
  const cairn = context.owner ??
    await openCairn(context.storeDir, { warmModel: options.warmModel ?? false });
  try {
    const warn = options.warn ?? ((line) => console.error(line));
    if (!context.owner) reportRecovery(cairn.store.log.recovery, warn);
    const cutBefore = cairn.embedder.truncation?.();
    const result = await work(cairn);
    if (options.settle && !context.owner) await cairn.store.runner.settled();
    // In the owner, the model's cuts since the command began are mostly the background's.
    const cut = context.owner
      ? undefined
      : truncationNote(cutBefore, cairn.embedder.truncation?.());
    if (cut) warn(cut);
    return result;
  } finally {
    if (!context.owner) await cairn.close();
  }
}

/** Tells the user that a torn last record was cut off when the log opened. */
export function reportRecovery(recovery: LogRecovery, warn: (line: string) => void): void {
  const torn = recovery.truncatedTail;
  if (!torn) return;
  warn(
    `cairn: warning: the last record of log segment ${torn.segment} was torn (${torn.reason}), ` +
      `probably by a crash; cut ${torn.bytes} bytes at offset ${torn.offset}. ` +
      "Only an unacknowledged write was lost.",
  );
}
