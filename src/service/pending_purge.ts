/**
 * A purge in two steps, appending `memory.purged` and then compacting the log,
 * can be cut between them by a crash, leaving the content in the log with no
 * memory left to purge again. A marker file, written before the first step
 * and removed after the second, lets the next open of the store finish it.
 * Purges of one store run one after the other: two at once shared the marker,
 * and the second found it gone.
 * @module
 */
import { join } from "node:path";
import { exists, syncDir, writeFileAtomic } from "../../events/durable_fs.ts";
import { compactStore } from "./compact.ts";
import type { Store } from "./store.ts";

const MARKER = "purge.pending";

/** The last purge asked of each open store, for the next to wait for. */
const lastPurge = new WeakMap<Store, Promise<void>>();

/**
 * Runs `purge` (append, then compact) so that a crash inside it is finished
 * by the next open, once the store's purges asked before it are done.
 */
export function purgeDurably(store: Store, purge: () => Promise<void>): Promise<void> {
  const previous = lastPurge.get(store) ?? Promise.resolve();
  const next = previous.catch(() => {}).then(() => purgeMarked(store, purge));
  lastPurge.set(store, next);
  return next;
}

async function purgeMarked(store: Store, purge: () => Promise<void>): Promise<void> {
  await writeFileAtomic(join(store.dir, MARKER), "a purge was started and has not finished\n");
  await purge();
  await Deno.remove(join(store.dir, MARKER));
  await syncDir(store.dir);
}

/** Finishes a purge a crash interrupted; true when there was one. */
export async function finishPendingPurge(store: Store): Promise<boolean> {
  if (!await exists(join(store.dir, MARKER))) return false;
  await compactStore(store);
  await Deno.remove(join(store.dir, MARKER));
  await syncDir(store.dir);
  return true;
}
