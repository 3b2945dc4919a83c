/**
 * `cairn verify`'s look at the projections: each must open, and hold as many
 * documents as its checkpoint says; the vectors, once caught up, a vector for
 * every document the log gives one. Nothing is moved or rebuilt here: the
 * next open of the store does that, or `cairn replay` for missing vectors.
 * @module
 */
import { join } from "node:path";
import { BlobStore } from "../../events/blobs.ts";
import { FileLog } from "../../events/file_log.ts";
import { StoreLock, StoreLockedError } from "../../events/lock.ts";
import { FileCheckpoints } from "../../projections/checkpoints.ts";
import { CodeCatalog } from "../../projections/code_catalog.ts";
import { checkpointDisagrees } from "../../projections/damage.ts";
import { GraphProjection } from "../../projections/graph/graph_projection.ts";
import { MemoryHistory } from "../../projections/memory_history.ts";
import type { Projection } from "../../projections/projection.ts";
import { SessionState } from "../../projections/session_state.ts";
import { TextProjection } from "../../projections/text.ts";
import { VectorsProjection } from "../../projections/vectors/vectors_projection.ts";
import { censusDisagrees, VectorCensus } from "../../projections/vectors/census.ts";
import type { VectorSource } from "../../projections/vectors/backlog.ts";
import { vectorsToCount } from "./counted_vectors.ts";
import { storeLayout } from "./paths.ts";
import { plural } from "../recall/vector_lag.ts";

/** What the check found: a line per problem, or why it could not look. */
export type ProjectionCheck =
  | { checked: string[]; problems: string[]; notCounted?: string }
  | { skipped: string };

/**
 * Opens each projection of the store in `storeDir` and compares it with its
 * checkpoint; `unreadable` names the blobs found missing or damaged, whose
 * documents have no vector.
 */
export async function checkProjections(
  storeDir: string,
  unreadable: (hash: string) => boolean = () => false,
): Promise<ProjectionCheck> {
  let lock: StoreLock;
  try {
    lock = await StoreLock.acquire(storeDir, 0);
  } catch (error) {
    if (error instanceof StoreLockedError) return { skipped: error.message };
    throw error;
  }
  try {
    const layout = storeLayout(storeDir);
    const blobs = new BlobStore(layout.blobs);
    const checkpoints = new FileCheckpoints(layout.projections);
    const log = await FileLog.open(layout.log, { readOnly: true });
    const head = log.head;
    // Vectors a version change will rebuild at the next open are not counted.
    const vectorsAt = await checkpoints.read("vectors");
    const census = vectorsAt?.seq === head && vectorsAt.version === VectorsProjection.VERSION
      ? await censusOf(log, unreadable)
      : undefined;
    await log.close();
    /** What the vectors hold per source, read as they are opened for their check. */
    let held: Record<VectorSource, number> | undefined;
    const openers: Record<string, (dir: string) => Promise<Projection>> = {
      graph: (dir) => GraphProjection.open(dir),
      text: (dir) => TextProjection.open(dir, blobs),
      vectors: async (dir) => {
        const vectors = await vectorsToCount(dir, blobs);
        held = vectors.counts();
        return vectors;
      },
      code_catalog: (dir) => CodeCatalog.open(dir),
      session_state: (dir) => SessionState.open(dir),
      memory_history: (dir) => MemoryHistory.open(dir),
    };
    const problems: string[] = [];
    const failed = new Set<string>();
    for (const [name, open] of Object.entries(openers)) {
      const problem = await checkOne(
        name,
        () => open(join(layout.projections, name)),
        checkpoints,
        head,
      );
      if (problem) {
        failed.add(name);
        problems.push(
          `projection ${name}: ${problem}; it is rebuilt from the log when the store next opens`,
        );
      }
    }
    // Only vectors that opened and agree with their checkpoint are counted against the log.
    const missing = census && held && !failed.has("vectors") &&
      censusDisagrees(census.counts(), held);
    if (missing) {
      problems.push(
        `projection vectors: ${missing}; \`cairn replay --projection vectors\` computes them again`,
      );
    }
    const checked = { checked: Object.keys(openers), problems };
    if (vectorsAt && vectorsAt.seq < head) {
      return {
        ...checked,
        notCounted: `the vectors were not counted against the log: they are ${
          plural(head - vectorsAt.seq, "event")
        } behind, still to be computed; \`cairn status\` says when they are in`,
      };
    }
    return checked;
  } finally {
    await lock.release();
  }
}

/** What the whole log gives vectors to. */
async function censusOf(
  log: FileLog,
  unreadable: (hash: string) => boolean,
): Promise<VectorCensus> {
  const census = new VectorCensus(unreadable);
  for await (const event of log.read(1)) census.note(event);
  return census;
}

async function checkOne(
  name: string,
  open: () => Promise<Projection>,
  checkpoints: FileCheckpoints,
  head: number,
): Promise<string | undefined> {
  let projection: Projection;
  try {
    projection = await open();
  } catch (error) {
    return `cannot be read (${(error as Error).message})`;
  }
  try {
    return await checkpointDisagrees(await checkpoints.read(name), projection, head);
  } finally {
    await projection.close();
  }
}
