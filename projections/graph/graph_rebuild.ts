import { dirname, join } from "node:path";
import type { EventLog } from "../../events/log.ts";
import type { StoredEvent } from "../../events/schema.ts";
import { filesHoldingAny } from "../../events/traces.ts";
import { APPLY_BATCH } from "../runner.ts";
import { GraphProjection } from "./graph_projection.ts";

/** The folder, beside the graph's database file, where a rebuild writes the new one. */
const REBUILD_DIR = "rebuild";

/** Raised when a rebuilt graph's files still hold a text they must not. */
export class GraphStillHolds extends Error {
  override name = "GraphStillHolds";
}

/**
 * Rebuilds `graph` from the log's events up to `upTo` (the last one it holds)
 * into a fresh database beside it, then swaps the new files in. Kùzu keeps
 * deleted strings in its pages and its write-ahead log, so this is how purged
 * content leaves the disk. Readers see the old graph until the swap, and
 * holders of `graph.database` keep a working handle. Call it while no events
 * are being applied to `graph`. The graph's folder is then searched for the
 * texts it must no longer hold (`without`): Kùzu writes pages cairn does not
 * see, so a purge checks rather than trusts. A rebuild that still holds one
 * is done once more, then refused with {@linkcode GraphStillHolds}.
 */
export async function rebuildGraph(
  graph: GraphProjection,
  log: EventLog,
  upTo: number,
  without: readonly string[] = [],
): Promise<void> {
  const folder = dirname(graph.database.path);
  let held: string[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    await rebuildOnce(graph, log, upTo);
    held = await filesHoldingAny(folder, without);
    if (held.length === 0) return;
    console.error(
      `cairn: the rebuilt graph's ${held.join(", ")} still held purged content` +
        (attempt === 0 ? "; rebuilding it again" : ""),
    );
  }
  throw new GraphStillHolds(
    `the graph's files still hold purged content after two rebuilds: ${held.join(", ")} in ` +
      folder,
  );
}

async function rebuildOnce(graph: GraphProjection, log: EventLog, upTo: number): Promise<void> {
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
