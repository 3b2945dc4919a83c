import { join } from "node:path";
import { BlobStore } from "../../events/blobs.ts";
import { syncDir } from "../../events/durable_fs.ts";
import { FileLog } from "../../events/file_log.ts";
import { StoreLock } from "../../events/lock.ts";
import { FileCheckpoints } from "../../projections/checkpoints.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { VectorsProjection } from "../../projections/vectors/vectors_projection.ts";
import { loadConfig } from "./config.ts";
import { UserError } from "./errors.ts";
import { storeLayout } from "./paths.ts";
import { embedderFor } from "./providers.ts";

/** What a re-embedding did. */
export interface ReembedReport {
  model: string;
  vectors: Record<string, number>;
  seconds: number;
}

/**
 * Rebuilds every vector with the model the store's settings name now: the new
 * vectors are built beside the old ones (`projections/next/vectors`, resumable:
 * an interrupted run continues where it stopped, and the embedding cache spares
 * texts already embedded), then swapped in with two renames.
 */
export async function reembed(
  storeDir: string,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<ReembedReport> {
  const started = performance.now();
  const layout = storeLayout(storeDir);
  const lock = await StoreLock.acquire(storeDir);
  try {
    const log = await FileLog.open(layout.log);
    const nextRoot = join(layout.projections, "next");
    const embedder = await embedderFor(await loadConfig(storeDir), storeDir);
    const vectors = await VectorsProjection.open(
      join(nextRoot, "vectors"),
      embedder,
      new BlobStore(layout.blobs),
    );
    const runner = await ProjectionRunner.open(log, [vectors], new FileCheckpoints(nextRoot));
    const ticker = setInterval(() => onProgress(runner.status()[0]!.checkpoint, log.head), 1000);
    try {
      await runner.settled();
    } finally {
      clearInterval(ticker);
    }
    const report = { model: vectors.model, vectors: vectors.counts(), seconds: 0 };
    const left = runner.status()[0]!.lag;
    await runner.close();
    await log.close();
    if (left > 0) {
      throw new UserError(
        `re-embedding stopped with ${left} events left (the error is above); the old vectors ` +
          "are kept, and `cairn reembed` continues where it stopped",
      );
    }
    const current = join(layout.projections, "vectors");
    const retired = join(layout.projections, "vectors.old");
    await Deno.remove(retired, { recursive: true }).catch(() => {});
    await Deno.rename(current, retired).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
    await Deno.rename(join(nextRoot, "vectors"), current);
    await syncDir(layout.projections);
    await Deno.remove(retired, { recursive: true });
    await Deno.remove(nextRoot, { recursive: true }).catch(() => {});
    return { ...report, seconds: (performance.now() - started) / 1000 };
  } finally {
    await lock.release();
  }
}
