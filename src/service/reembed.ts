import { join } from "node:path";
import { BlobStore } from "../../events/blobs.ts";
import { syncDir } from "../../events/durable_fs.ts";
import { FileLog } from "../../events/file_log.ts";
import { StoreLock } from "../../events/lock.ts";
import { FileCheckpoints } from "../../projections/checkpoints.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import {
  ModelMismatchError,
  VectorsProjection,
} from "../../projections/vectors/vectors_projection.ts";
import type { Embedder } from "../embed/embedder.ts";
import { type EmbedderSettings, loadConfig, saveEmbedderSettings } from "./config.ts";
import { UserError } from "./errors.ts";
import { storeLayout } from "./paths.ts";
import { embedderFor } from "./providers.ts";

/** What a re-embedding did. */
export interface ReembedReport {
  model: string;
  vectors: Record<string, number>;
  seconds: number;
  /** The event an interrupted run had reached, when this run continued it; else 0. */
  resumedFrom: number;
}

/** Options of {@linkcode reembed}. */
export interface ReembedOptions {
  /** Called every second with the events embedded so far and the total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * The model to move to instead of config.json's; config.json is switched to
   * it only once the new vectors are swapped in, so until then the store keeps
   * working with its old model and vectors.
   */
  embedder?: EmbedderSettings;
}

/**
 * Rebuilds every vector with the model the store's settings name now: the new
 * vectors are built beside the old ones (`projections/next/vectors`, resumable:
 * an interrupted run continues where it stopped, and the embedding cache spares
 * texts already embedded), then swapped in with two renames. Vectors left
 * half-built by a run towards another model are started over.
 */
export async function reembed(
  storeDir: string,
  options: ReembedOptions = {},
): Promise<ReembedReport> {
  const started = performance.now();
  const onProgress = options.onProgress ?? (() => {});
  const layout = storeLayout(storeDir);
  const lock = await StoreLock.acquire(storeDir);
  try {
    const log = await FileLog.open(layout.log);
    const nextRoot = join(layout.projections, "next");
    const config = await loadConfig(storeDir);
    const embedder = await embedderFor(
      options.embedder ? { ...config, embedder: options.embedder } : config,
      storeDir,
    );
    const vectors = await openNext(nextRoot, embedder, new BlobStore(layout.blobs));
    const checkpoints = new FileCheckpoints(nextRoot);
    const saved = await checkpoints.read(vectors.name);
    const resumedFrom = saved?.version === vectors.version ? saved.seq : 0;
    const runner = await ProjectionRunner.open(log, [vectors], checkpoints);
    const ticker = setInterval(() => onProgress(runner.status()[0]!.checkpoint, log.head), 1000);
    try {
      await runner.settled();
    } finally {
      clearInterval(ticker);
    }
    const report = { model: vectors.model, vectors: vectors.counts(), seconds: 0, resumedFrom };
    const left = runner.status()[0]!.lag;
    await runner.close();
    await log.close();
    if (left > 0) {
      throw new UserError(
        `re-embedding stopped with ${left} events left (the error is above); the old vectors ` +
          "are kept, and running the same `cairn reembed` again continues where it stopped",
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
    if (options.embedder) await saveEmbedderSettings(storeDir, options.embedder);
    await Deno.remove(retired, { recursive: true });
    await Deno.remove(nextRoot, { recursive: true }).catch(() => {});
    return { ...report, seconds: (performance.now() - started) / 1000 };
  } finally {
    await lock.release();
  }
}

/** The vectors being built in `nextRoot`, started over when they were begun with another model. */
async function openNext(
  nextRoot: string,
  embedder: Embedder,
  blobs: BlobStore,
): Promise<VectorsProjection> {
  const dir = join(nextRoot, "vectors");
  try {
    return await VectorsProjection.open(dir, embedder, blobs);
  } catch (error) {
    if (!(error instanceof ModelMismatchError)) throw error;
    await Deno.remove(nextRoot, { recursive: true });
    return await VectorsProjection.open(dir, embedder, blobs);
  }
}
