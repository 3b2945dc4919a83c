import { blobsOf, planCompaction } from "../../events/compaction.ts";
import type { RewriteStats } from "../../events/log.ts";
import type { Store } from "./store.ts";

/** What a compaction did. */
export interface CompactionReport extends RewriteStats {
  blobsRemoved: number;
}

/**
 * Compacts the store's log to the latest state of every entity, then removes
 * blobs no kept event references. Blobs written after the compaction started
 * are left alone, so a command in flight never loses its content.
 */
export async function compactStore(store: Store): Promise<CompactionReport> {
  const started = Date.now();
  const drop = await planCompaction(store.log.read(1));
  const live = new Set<string>();
  const stats = await store.log.rewrite((event) => {
    if (drop.has(event.seq)) return false;
    for (const blob of blobsOf(event)) live.add(blob);
    return true;
  });
  let blobsRemoved = 0;
  for await (const hash of store.blobs.list()) {
    if (live.has(hash) || (await store.blobs.modifiedAt(hash)) >= started) continue;
    await store.blobs.remove(hash);
    blobsRemoved++;
  }
  return { ...stats, blobsRemoved };
}
