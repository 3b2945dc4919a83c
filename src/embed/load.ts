/**
 * Finds and opens the embedding model shipped with cairn, or another model folder.
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { CachedEmbedder, embeddingCacheDir } from "./cache.ts";
import type { Embedder } from "../../text/embedder.ts";
import { EmbedderError } from "./embedder.ts";
import { LazyEmbedder } from "./lazy_embedder.ts";
import { machineCacheDir } from "./machine_cache.ts";
import { loadModelFolder, modelId, type ModelManifest } from "./manifest.ts";
import { checkModelOnce } from "./model_check.ts";
import { OnnxEmbedder } from "./onnx_embedder.ts";
import { UnavailableEmbedder } from "./unavailable_embedder.ts";

/** The name of the model folder cairn ships and uses by default. */
export const DEFAULT_MODEL = "bge-small-en-v1.5-int8ffn2last1-doc256";

/**
 * The folder of a shipped model, found relative to this module so it resolves
 * the same in a checkout and inside a `deno compile`d binary (which includes `models/`).
 */
export function shippedModelDir(name = DEFAULT_MODEL): string {
  return fileURLToPath(new URL(`../../models/${name}/`, import.meta.url));
}

/**
 * Every model folder shipped with cairn, by model id (see
 * {@linkcode modelId}): folders of `models/` with a readable manifest.
 */
export async function shippedModels(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const entry of Deno.readDir(join(shippedModelDir(), ".."))) {
    if (!entry.isDirectory) continue;
    const dir = shippedModelDir(entry.name);
    try {
      out.set((await loadModelFolder(dir, { verify: false })).id, dir);
    } catch (error) {
      if (!(error instanceof EmbedderError)) throw error;
    }
  }
  return out;
}

/**
 * The embedder a store uses by default: the shipped model behind the store's
 * embedding cache, loaded on first use (its files are checked then, once per
 * change: see {@linkcode checkModelOnce}). A folder without
 * a readable manifest gives an {@linkcode UnavailableEmbedder}, so the store
 * still opens and searches by words.
 */
export async function storeEmbedder(
  storeDir: string,
  modelDir = shippedModelDir(),
): Promise<Embedder> {
  try {
    const { manifest } = await loadModelFolder(modelDir, { verify: false });
    return lazyOnnxEmbedder(storeDir, manifest, () => Promise.resolve(modelDir));
  } catch (error) {
    if (!(error instanceof EmbedderError)) throw error;
    const shipped = error.code === "model_missing" && modelDir === shippedModelDir();
    return new UnavailableEmbedder(
      shipped
        ? new EmbedderError(
          error.code,
          `${error.message}; reinstall cairn (the default model ships with it)`,
          { cause: error },
        )
        : error,
    );
  }
}

/**
 * An ONNX model described by `manifest`, behind the store's embedding cache
 * and the user's shared one, started on first use from the folder `folder`
 * resolves to then (a model still to download is fetched at that moment). Its
 * files are checked against the manifest before onnxruntime reads them.
 */
export function lazyOnnxEmbedder(
  storeDir: string,
  manifest: ModelManifest,
  folder: () => Promise<string>,
): LazyEmbedder {
  const id = modelId(manifest);
  return new LazyEmbedder(id, manifest.dims, async () => {
    const dir = await folder();
    await checkModelOnce(
      dir,
      manifest.files,
      join(embeddingCacheDir(storeDir, id), "model-checked.json"),
    );
    const model = await OnnxEmbedder.open(dir, { verify: false });
    return await CachedEmbedder.open(model, storeDir, machineCacheDir());
  });
}
