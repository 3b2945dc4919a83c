/**
 * Projections are derived data: one whose files cannot be read is moved aside
 * and rebuilt from the log, never allowed to make the store unopenable.
 * @module
 */
import { basename, join } from "node:path";
import { isDiskFull } from "../events/disk_full.ts";
import type { Checkpoint, Projection } from "./projection.ts";

/** Raised by a projection whose files on disk cannot be read as what it wrote. */
export class ProjectionDamage extends Error {
  override name = "ProjectionDamage";
}

/**
 * True when `error`, raised while opening a projection, says its files are
 * damaged rather than that the machine or the user refuses (permissions, a full
 * disk, no memory, too many open files): rebuilding would not help those.
 */
function isDamage(error: unknown): boolean {
  if (error instanceof ProjectionDamage) return true;
  if (!(error instanceof Error)) return false;
  if (error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable) {
    return false;
  }
  if (isDiskFull(error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && OUT_OF_RESOURCES.has(code)) return false;
  return !REFUSALS.has(error.name);
}

/** No memory, too many open files: the machine's state, not the projection's. */
const OUT_OF_RESOURCES = new Set(["ENOMEM", "EMFILE", "ENFILE"]);
/** Errors a projection raises on purpose, with the next step for the user. */
const REFUSALS = new Set(["ModelMismatchError", "StoreLockedError"]);

/**
 * What is wrong when a projection holds another number of entries than its
 * checkpoint recorded, or its files were written up to another event (files
 * lost or damaged behind its back); undefined when they agree or either is
 * unknown. Only a projection whose checkpoint is the log's head (`head`) is
 * judged: a crash between applying a batch and writing its checkpoint leaves
 * files ahead of the checkpoint, which the next catch-up applies again, harmlessly.
 */
export async function checkpointDisagrees(
  checkpoint: Checkpoint | undefined,
  projection: Pick<Projection, "count" | "savedThrough">,
  head: number,
): Promise<string | undefined> {
  if (checkpoint === undefined || checkpoint.seq !== head) return undefined;
  const count = await projection.count?.();
  const saved = projection.savedThrough?.();
  if (checkpoint.count !== undefined && count !== undefined && count !== checkpoint.count) {
    return `holds ${count} entries where its checkpoint says ${checkpoint.count}`;
  }
  if (checkpoint.saved !== undefined && saved !== undefined && saved !== checkpoint.saved) {
    return `was written up to event ${saved} where its checkpoint says ${checkpoint.saved}`;
  }
  return undefined;
}

/** Where a damaged projection went, and why. */
export interface MovedAside {
  name: string;
  reason: string;
  to: string;
}

/**
 * Opens the projection kept in `dir` with `open`. When its files are damaged,
 * moves `dir` (its checkpoint with it) into `asideDir` and opens an empty one
 * in its place, which the runner then rebuilds from the log; `moved` hears of it.
 */
export async function openOrRebuild<P>(
  dir: string,
  asideDir: string,
  open: () => Promise<P>,
  moved: (aside: MovedAside) => void,
): Promise<P> {
  try {
    return await open();
  } catch (error) {
    if (!isDamage(error)) throw error;
    await Deno.mkdir(asideDir, { recursive: true, mode: 0o700 });
    const to = join(asideDir, `${basename(dir)}-${new Date().toISOString().replace(/[:.]/g, "-")}`);
    await Deno.rename(dir, to);
    moved({ name: basename(dir), reason: (error as Error).message, to });
    return await open();
  }
}
