/**
 * Commands that need the store to themselves (replay, compact, verify
 * --repair) ask a running owner to step aside instead of failing on its lock:
 * it finishes the requests under way, closes the store and exits, and the
 * next command or agent call that needs an owner starts one again.
 * @module
 */
import { ownerFetch } from "../mcp/owner_death.ts";
import { readOwnerRecord, readToken } from "../mcp/owner_file.ts";
import { provesOwner } from "../mcp/owner_proof.ts";
import type { CommandContext } from "./command.ts";

/** The path an owner is asked to step aside on (with the token). */
export const STEP_ASIDE_PATH = "/step-aside";

/** Asks the store's owner, if one runs, to let go of the store; says so on standard error. */
export async function askOwnerToStepAside(context: CommandContext): Promise<void> {
  const record = await readOwnerRecord(context.storeDir);
  const token = record ? await readToken(context.storeDir) : undefined;
  if (!record || !token || !await provesOwner(record.port, token)) return;
  const response = await ownerFetch(`http://127.0.0.1:${record.port}${STEP_ASIDE_PATH}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  }).catch(() => undefined);
  await response?.body?.cancel();
  if (!response?.ok) return;
  context.err(
    `cairn: the store's owner (pid ${record.pid}) steps aside for this command; ` +
      "the next command or agent call that needs it starts it again",
  );
}
