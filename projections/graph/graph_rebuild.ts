import { dirname, join } from "node:path";
import type { EventLog } from "../../events/log.ts";
import type { StoredEvent } from "../../events/schema.ts";
import { APPLY_BATCH } from "../runner.ts";
import { GraphProjection } from "./graph_projection.ts";

/** The folder, beside the graph's database file, where a rebuild writes the new one. */
const REBUILD_DIR = "rebuild";

/**
 * Rebuilds `graph` from the log's events up to `upTo` (the last one it holds)
 * into a fresh database beside it, then swaps the new files in. Kùzu keeps
 * deleted strings in its pages and its write-ahead log, so this is how purged
 * content leaves the disk. Readers see the old graph until the swap, and
 * holders of `graph.database` keep a working handle. Call it while no events
 * are being applied to `graph`.
 */
export async function rebuildGraph(
  graph: GraphProjection,
  log: EventLog,
  upTo: number,
): Promise<void> {
  const aside = join(dirname(graph.database.path), REBUILD_DIR);
  await Deno.remove(aside, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  const fresh = await GraphProjection.open(aside);
  try {
    await replayInto(fresh, log, { past: (event) => event.seq > upTo });
  } finally {
    await fresh.close();
  }
  await graph.replaceWith(fresh.database.path);
  await Deno.remove(aside, { recursive: true });
}

/**
 * Applies the log's events to `graph` in batches, from the first until one is
 * `past` the end, leaving out those `skip` names.
 */
export async function replayInto(
  graph: GraphProjection,
  log: EventLog,
  { past, skip = () => false }: {
    past: (event: StoredEvent) => boolean;
    skip?: (event: StoredEvent) => boolean;
  },
): Promise<void> {
  let batch: StoredEvent[] = [];
  for await (const event of log.read(1)) {
    if (past(event)) break;
    if (skip(event)) continue;
    batch.push(event);
    if (batch.length === APPLY_BATCH) {
      await graph.apply(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await graph.apply(batch);
}
