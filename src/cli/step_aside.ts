/**
 * Commands that need the store to themselves (replay, compact, verify
 * --repair) ask a running owner to step aside instead of failing on its lock:
 * it finishes the requests under way, closes the store and exits, and the
 * next command or agent call that needs an owner starts one again.
 * @module
 */
import { ownerFetch } from "../mcp/owner_death.ts";
import { runningOwner } from "../mcp/owner_start.ts";
import type { CommandContext } from "./command.ts";

/** The path an owner is asked to step aside on (with the token). */
export const STEP_ASIDE_PATH = "/step-aside";

/** Asks the store's owner, if one runs, to let go of the store; says so on standard error. */
export async function askOwnerToStepAside(context: CommandContext): Promise<void> {
  const pid = await stopOwner(context.storeDir);
  if (pid === undefined) return;
  context.err(
    `cairn: the store's owner (pid ${pid}) steps aside for this command; ` +
      "the next command or agent call that needs it starts it again",
  );
}

/**
 * Asks the store's owner, if one runs, to finish what it is doing, close the
 * store and exit; resolves to its pid once it was asked, undefined when none runs.
 */
export async function stopOwner(storeDir: string): Promise<number | undefined> {
  const owner = await runningOwner(storeDir);
  if (!owner) return undefined;
  const response = await ownerFetch(`http://127.0.0.1:${owner.port}${STEP_ASIDE_PATH}`, {
    method: "POST",
    headers: { authorization: `Bearer ${owner.token}` },
  }).catch(() => undefined);
  await response?.body?.cancel();
  return response?.ok ? owner.pid : undefined;
}
