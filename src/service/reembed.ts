import { join } from "node:path";
import { BlobStore } from "../../events/blobs.ts";
import { syncDir } from "../../events/durable_fs.ts";
import { FileLog } from "../../events/file_log.ts";
import { StoreLock } from "../../events/lock.ts";
import type { EventLog } from "../../events/log.ts";
import { FileCheckpoints } from "../../projections/checkpoints.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import {
  ModelMismatchError,
  type VectorSource,
  VectorsProjection,
} from "../../projections/vectors/vectors_projection.ts";
import type { Embedder } from "../../text/embedder.ts";
import { type EmbedderSettings, loadConfig, saveEmbedderSettings } from "./config.ts";
import { UserError } from "../errors.ts";
import { vectorsToCount } from "./counted_vectors.ts";
import { storeLayout } from "./paths.ts";
import { embedderFor } from "./providers.ts";
import type { Store } from "./store.ts";

/** What a re-embedding did. */
export interface ReembedReport {
  model: string;
  vectors: Record<VectorSource, number>;
  seconds: number;
  /** The event an interrupted run had reached, when this run continued it; else 0. */
  resumedFrom: number;
}

/** How far a re-embedding has got. */
export interface ReembedProgress {
  /** The model the vectors are being rebuilt with. */
  model: string;
  /** Vectors rebuilt so far, and about how many there will be (the store's, when known). */
  vectors: number;
  expected?: number;
  /** Vectors computed per second over the last few batches, once enough were to tell. */
  rate?: number;
  /** Events of the log read so far, and the log's head when the rebuild began. */
  events: number;
  of: number;
}

/** The refusal of a second rebuild while `running` (its progress, once known) goes on. */
export function alreadyReembedding(running: ReembedProgress | undefined): UserError {
  const where = running ? ` (to ${running.model}, event ${running.events} of ${running.of})` : "";
  return new UserError(
    `a \`cairn reembed\` is already running in the store's owner${where}; it goes on even if the ` +
      "command that started it was interrupted, and `cairn status` shows how far it has got",
  );
}

/** Options of {@linkcode reembed}. */
export interface ReembedOptions {
  /** Called every second with how far the rebuild has got. */
  onProgress?: (progress: ReembedProgress) => void;
  /**
   * The model to move to instead of config.json's; config.json is switched to
   * it only once the new vectors are swapped in, so until then the store keeps
   * working with its old model and vectors.
   */
  embedder?: EmbedderSettings;
}

/** The vectors in use, and how to put others in their place. */
export interface VectorsInUse {
  /** Makes `vectors`, built by `embedder`, the ones every search and write uses from now on. */
  swap(embedder: Embedder, vectors: VectorsProjection): void;
}

/**
 * Rebuilds every vector with the model the store's settings name now, in a
 * store no process has open: the new vectors are built beside the old ones
 * (`projections/next/vectors`, resumable: an interrupted run continues where
 * it stopped, and the embedding cache spares texts already embedded), then
 * swapped in with two renames. Vectors left half-built by a run towards
 * another model are started over.
 */
export async function reembed(
  storeDir: string,
  options: ReembedOptions = {},
): Promise<ReembedReport> {
  const started = performance.now();
  const layout = storeLayout(storeDir);
  const lock = await StoreLock.acquire(storeDir);
  try {
    const log = await FileLog.open(layout.log);
    const blobs = new BlobStore(layout.blobs);
    const expected = await vectorsHeld(join(layout.projections, "vectors"), blobs);
    let built;
    try {
      const embedder = await chosenEmbedder(storeDir, options);
      built = await buildNext(log, layout.projections, embedder, blobs, options, expected);
    } finally {
      await log.close();
    }
    await swapDirs(layout.projections);
    await finish(storeDir, options);
    return { ...built.report, seconds: (performance.now() - started) / 1000 };
  } finally {
    await lock.release();
  }
}

/**
 * Rebuilds every vector of a store this process has open (the owner's), as
 * {@linkcode reembed} does, while searches keep using the old vectors and
 * writes keep coming; the new vectors take over once they have caught up,
 * and then catch up with whatever was written meanwhile.
 */
export async function reembedOpenStore(
  store: Store,
  inUse: VectorsInUse,
  options: ReembedOptions = {},
): Promise<ReembedReport> {
  const started = performance.now();
  const projections = storeLayout(store.dir).projections;
  const current = store.runner.projections.find((p) => p instanceof VectorsProjection);
  const built = await buildNext(
    store.log,
    projections,
    await chosenEmbedder(store.dir, options),
    store.blobs,
    options,
    current?.total(),
  );
  let fresh: { embedder: Embedder; vectors: VectorsProjection } | undefined;
  const old = await store.runner.replace("vectors", built.checkpoint, async () => {
    const embedder = await chosenEmbedder(store.dir, options);
    await swapDirs(projections);
    try {
      fresh = {
        embedder,
        vectors: await VectorsProjection.open(
          join(projections, "vectors"),
          embedder,
          store.blobs,
          store.log,
        ),
      };
    } catch (error) {
      // The vectors in use write to their folder by name: give it back to them.
      await unswapDirs(projections);
      throw error;
    }
    return fresh.vectors;
  });
  inUse.swap(fresh!.embedder, fresh!.vectors);
  await old.close();
  await finish(store.dir, options);
  return { ...built.report, seconds: (performance.now() - started) / 1000 };
}

/** How many vectors the closed store's vectors in `dir` hold; undefined when they cannot be read. */
async function vectorsHeld(dir: string, blobs: BlobStore): Promise<number | undefined> {
  try {
    const vectors = await vectorsToCount(dir, blobs);
    const total = vectors.total();
    await vectors.close();
    return total;
  } catch {
    return undefined;
  }
}

/**
 * The embedder of the model to move to: `options.embedder`, else the one
 * config.json names, else the shipped default (not the model the vectors
 * were built with: rebuilding them with the same model is not a move).
 */
async function chosenEmbedder(storeDir: string, options: ReembedOptions): Promise<Embedder> {
  const config = await loadConfig(storeDir);
  return await embedderFor(
    options.embedder ? { ...config, embedder: options.embedder } : config,
    storeDir,
    { newest: true },
  );
}

/**
 * Builds vectors for every event of `log` up to its head now, in
 * `projections/next/vectors`, and closes them; throws if any event failed.
 * `expected`, the vectors the store holds now, is what the progress says the
 * rebuild should come to, give or take what is written meanwhile.
 */
async function buildNext(
  log: EventLog,
  projections: string,
  embedder: Embedder,
  blobs: BlobStore,
  options: ReembedOptions,
  expected: number | undefined,
): Promise<{ report: Omit<ReembedReport, "seconds">; checkpoint: number }> {
  const onProgress = options.onProgress ?? (() => {});
  const nextRoot = join(projections, "next");
  const vectors = await openNext(nextRoot, embedder, blobs);
  const checkpoints = new FileCheckpoints(nextRoot);
  const saved = await checkpoints.read(vectors.name);
  const resumedFrom = saved?.version === vectors.version ? saved.seq : 0;
  const target = log.head;
  const runner = await ProjectionRunner.open(log, [vectors], checkpoints);
  const progress = (): ReembedProgress => {
    const rate = vectors.rate();
    return {
      model: vectors.model,
      vectors: vectors.total(),
      ...(expected === undefined ? {} : { expected }),
      ...(rate === undefined ? {} : { rate }),
      events: runner.status()[0]!.checkpoint,
      of: target,
    };
  };
  onProgress(progress());
  const ticker = setInterval(() => onProgress(progress()), 1000);
  try {
    await runner.settled();
  } finally {
    clearInterval(ticker);
  }
  const report = { model: vectors.model, vectors: vectors.counts(), resumedFrom };
  const checkpoint = runner.status()[0]!.checkpoint;
  await runner.close();
  if (checkpoint < target) {
    throw new UserError(
      `re-embedding stopped with ${target - checkpoint} events left (the error is above); the ` +
        "old vectors are kept, and running the same `cairn reembed` again continues where it stopped",
    );
  }
  return { report, checkpoint };
}

/** Puts the vectors built in `next/` in place of the current ones, with two renames. */
async function swapDirs(projections: string): Promise<void> {
  const current = join(projections, "vectors");
  const retired = join(projections, "vectors.old");
  await Deno.remove(retired, { recursive: true }).catch(() => {});
  await Deno.rename(current, retired).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  await Deno.rename(join(projections, "next", "vectors"), current);
  await syncDir(projections);
}

/** Undoes {@linkcode swapDirs}: the new vectors back to `next/`, the old ones in place. */
async function unswapDirs(projections: string): Promise<void> {
  const current = join(projections, "vectors");
  await Deno.rename(current, join(projections, "next", "vectors"));
  await Deno.rename(join(projections, "vectors.old"), current);
  await syncDir(projections);
}

/** Names the new model in config.json (when it came from options) and removes what is left over. */
async function finish(storeDir: string, options: ReembedOptions): Promise<void> {
  const projections = storeLayout(storeDir).projections;
  if (options.embedder) await saveEmbedderSettings(storeDir, options.embedder);
  await Deno.remove(join(projections, "vectors.old"), { recursive: true }).catch(() => {});
  await Deno.remove(join(projections, "next"), { recursive: true }).catch(() => {});
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
