/**
 * Writing stops while the disk holding a store is nearly full, before anything
 * fails half-way: Kùzu crashes the process when a write to its files falls
 * short, and a store that is not being written can still be read.
 * @module
 */
import { statfs } from "node:fs/promises";

/** Space kept free on the store's disk: writes stop below it. */
const RESERVE_BYTES = 64 * 1024 * 1024;

/** Raised before a write when less than {@linkcode RESERVE_BYTES} are free. */
class DiskFullError extends Error {
  override name = "DiskFullError";
  readonly code = "ENOSPC";
}

/** Throws {@linkcode DiskFullError} when the disk holding `dir` has less than the reserve free. */
export async function ensureSpace(dir: string): Promise<void> {
  const stats = await statfs(dir);
  const free = stats.bavail * stats.bsize;
  if (free >= RESERVE_BYTES) return;
  throw new DiskFullError(
    `only ${(free / 2 ** 20).toFixed(1)} MiB are free on the disk that holds ${dir}; ` +
      `cairn writes nothing while less than ${RESERVE_BYTES / 2 ** 20} MiB are`,
  );
}
