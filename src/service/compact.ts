import { blobsOf, planCompaction } from "../../events/compaction.ts";
import { type EventLog, eventsUntil, type RewriteStats } from "../../events/log.ts";
import type { StoredEvent } from "../../events/schema.ts";
import { goneFromLog } from "../../events/traces.ts";
import { GraphProjection } from "../../projections/graph/graph_projection.ts";
import { rebuildGraph } from "../../projections/graph/graph_rebuild.ts";
import { MemoryHistory } from "../../projections/memory_history.ts";
import type { Projection } from "../../projections/projection.ts";
import { TextProjection } from "../../projections/text.ts";
import { VectorsProjection } from "../../projections/vectors/vectors_projection.ts";
import type { Store } from "./store.ts";

/** What a compaction did. */
export interface CompactionReport extends RewriteStats {
  blobsRemoved: number;
}

/**
 * Compacts the store's log to the latest state of every entity, then removes
 * blobs no kept event references. Blobs written after the compaction started,
 * or held by a writer whose events are not appended yet, are left alone, so a
 * command in flight never loses its content. When a
 * purged memory's events go, the projections that keep texts in their files
 * (graph, lexical index, memory history) are rewritten without it, so that no
 * copy of it stays in the store; the vectors keep no text, only vectors and
 * text hashes. The rebuilt graph's files are then searched for the purged
 * contents no kept event still carries (Kùzu's pages are not cairn's to see).
 * The vectors drop first what the dropped events end, where they have not
 * read them yet.
 */
export async function compactStore(
  store: Store,
  onProgress?: BlobProgress,
): Promise<CompactionReport> {
  const started = Date.now();
  const { drop, purged } = await planCompaction(store.log.read(1));
  await dropEndedVectors(store, drop);
  if (purged.size === 0) return await rewriteLog(store, drop, started, onProgress);
  const holders = store.runner.projections.flatMap((projection) => {
    const scrub = scrubberOf(projection, store.log);
    return scrub ? [{ name: projection.name, scrub }] : [];
  });
  return await store.runner.rewriting(holders.map((h) => h.name), async (applied) => {
    const contents: string[] = [];
    const report = await rewriteLog(store, drop, started, onProgress, (event) => {
      const content = (event.type === "memory.remembered" || event.type === "memory.revised") &&
        event.data.content;
      if (content && content.length >= MIN_TRACE) contents.push(content);
    });
    const traces = await goneFromLog(store.log, contents);
    try {
      for (const { name, scrub } of holders) await scrub(applied(name), traces);
    } catch (error) {
      throw new Error(
        `the purged content is gone from the log, but rewriting the projections failed: ` +
          `${(error as Error).message}; they are rebuilt from the log the next time the store ` +
          "opens (restart `cairn serve` if one owns the store)",
        { cause: error },
      );
    }
    return report;
  });
}

/**
 * Gives the vectors, where they lag behind the log, the ending events
 * (forgetting, purging, removals) the rewrite is about to drop: once gone from
 * the log, the vectors could never read them, and what they end would keep
 * its vectors for good.
 */
async function dropEndedVectors(store: Store, drop: ReadonlySet<number>): Promise<void> {
  const vectors = store.runner.projections.find((p) => p instanceof VectorsProjection);
  if (!vectors || drop.size === 0) return;
  const checkpoint = store.runner.status().find((s) => s.name === vectors.name)?.checkpoint ?? 0;
  const ended: StoredEvent[] = [];
  for await (const event of store.log.read(checkpoint + 1)) {
    if (drop.has(event.seq)) ended.push(event);
  }
  await vectors.dropEnded(ended);
}

/** Told how many of the blobs no kept event references are removed so far, of how many. */
export type BlobProgress = (removed: number, total: number) => void;

/** Blobs removed between two calls of a {@linkcode BlobProgress}. */
const PROGRESS_EVERY = 500;

/**
 * A purged memory's content shorter than this is not looked for in the
 * rebuilt graph: a word or two that other memories, entities or code names
 * may well hold.
 */
const MIN_TRACE = 8;

async function rewriteLog(
  store: Store,
  drop: ReadonlySet<number>,
  started: number,
  onProgress?: BlobProgress,
  onDropped?: (event: StoredEvent) => void,
): Promise<CompactionReport> {
  const live = new Set<string>();
  const stats = await store.log.rewrite((event) => {
    if (drop.has(event.seq)) {
      onDropped?.(event);
      return false;
    }
    for (const blob of blobsOf(event)) live.add(blob);
    return true;
  });
  const unused: string[] = [];
  for await (const hash of store.blobs.list()) {
    if (!live.has(hash)) unused.push(hash);
  }
  let blobsRemoved = 0;
  for (const [i, hash] of unused.entries()) {
    if (i % PROGRESS_EVERY === 0 && unused.length > PROGRESS_EVERY) onProgress?.(i, unused.length);
    if (store.blobs.isHeld(hash) || (await store.blobs.modifiedAt(hash)) >= started) continue;
    await store.blobs.remove(hash);
    blobsRemoved++;
  }
  return { ...stats, blobsRemoved };
}

/**
 * How a projection that keeps texts in its files rewrites them from what it
 * holds up to an event (which no longer includes what was purged), given the
 * purged texts no kept event carries; undefined for one that keeps no text.
 */
function scrubberOf(
  projection: Projection,
  log: EventLog,
): ((upTo: number, traces: readonly string[]) => Promise<void>) | undefined {
  if (projection instanceof TextProjection) {
    return (upTo) =>
      projection.rewriteEntities(eventsUntil(log.read(1), (event) => event.seq > upTo));
  }
  if (projection instanceof GraphProjection) {
    return (upTo, traces) => rebuildGraph(projection, log, upTo, traces);
  }
  if (projection instanceof MemoryHistory) return () => projection.rewrite();
  return undefined;
}
