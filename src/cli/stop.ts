import { StoreLock, StoreLockedError } from "../../events/lock.ts";
import { parseCommandArgs } from "./args.ts";
import type { Command } from "./command.ts";
import { stopOwner } from "../mcp/owner_start.ts";

/** How long `cairn stop` waits for the owner to finish and let go of the store. */
const STOP_WAIT_MS = 60_000;
/** How long an owner closing the store takes, past which `cairn stop` says what it waits for. */
const QUIET_WAIT_MS = 2_000;

/** `cairn stop`: stops the store's owner; the next command that needs one starts it again. */
export const stop: Command = {
  name: "stop",
  summary: "stop the store's owner (the next command or agent call starts it again)",
  usage: "cairn stop",
  async run(context) {
    parseCommandArgs(context.args, {});
    const pid = await stopOwner(context.storeDir);
    if (pid === undefined) {
      context.out("no owner runs for this store");
      return 0;
    }
    // The owner finishes the requests under way; it is gone once the store's lock is free.
    const free = await StoreLock.acquire(context.storeDir, QUIET_WAIT_MS).catch((error) => {
      if (error instanceof StoreLockedError) return undefined;
      throw error;
    });
    if (!free) {
      context.err(`waiting for the owner (pid ${pid}) to finish the commands it runs`);
    }
    const lock = free ?? await StoreLock.acquire(context.storeDir, STOP_WAIT_MS);
    await lock.release();
    context.out(`stopped the store's owner (pid ${pid})`);
    return 0;
  },
};
