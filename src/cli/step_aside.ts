/**
 * Commands that need the store to themselves (replay, compact, verify
 * --repair) ask a running owner to step aside instead of failing on its lock:
 * it finishes the requests under way, closes the store and exits, and the
 * next command or agent call that needs an owner starts one again.
 * @module
 */
import { stopOwner } from "../mcp/owner_start.ts";
import type { CommandContext } from "./command.ts";

/** Asks the store's owner, if one runs, to let go of the store; says so on standard error. */
export async function askOwnerToStepAside(context: CommandContext): Promise<void> {
  const pid = await stopOwner(context.storeDir);
  if (pid === undefined) return;
  context.err(
    `cairn: the store's owner (pid ${pid}) steps aside for this command; ` +
      "the next command or agent call that needs it starts it again",
  );
}
