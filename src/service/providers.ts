import { CachedEmbedder } from "../embed/cache.ts";
import type { Embedder } from "../../text/embedder.ts";
import { HttpEmbedder } from "../embed/http_embedder.ts";
import { LazyEmbedder } from "../embed/lazy_embedder.ts";
import { shippedModelDir, storeEmbedder } from "../embed/load.ts";
import { machineCacheDir } from "../embed/machine_cache.ts";
import { HttpReranker, type Reranker } from "../embed/reranker.ts";
import { apiKey, type Config, configPath } from "./config.ts";
import { EmbedderError } from "../embed/embedder.ts";
import { UnavailableEmbedder } from "../embed/unavailable_embedder.ts";
import { hubEmbedder } from "./hub_embedder.ts";
import { shippedModelFor } from "./store_model.ts";

/**
 * The embedder a store's settings choose: a shipped ONNX model (the one the
 * store's vectors were built with, unless `newest` asks for today's default;
 * see {@linkcode shippedModelFor}), another model folder, a model downloaded
 * from a hub, or an OpenAI-compatible HTTP endpoint; always behind the store's
 * embedding cache and the user's shared one, and started only when first
 * needed.
 */
export async function embedderFor(
  config: Config,
  storeDir: string,
  { newest = false } = {},
): Promise<Embedder> {
  const settings = config.embedder;
  if (settings.kind === "onnx") {
    const { model, manifest, hub_url } = settings;
    if (model && manifest) return hubEmbedder({ model, manifest, hub_url }, storeDir);
    if (settings.model_dir) return await configuredFolder(storeDir, settings.model_dir);
    const shipped = newest ? shippedModelDir() : await shippedModelFor(storeDir);
    return await storeEmbedder(storeDir, shipped);
  }
  const key = apiKey(settings.api_key_env);
  const http = new HttpEmbedder({
    baseUrl: settings.base_url,
    model: settings.model,
    dims: settings.dims,
    ...(key ? { apiKey: key } : {}),
    ...(settings.query_prefix ? { queryPrefix: settings.query_prefix } : {}),
  });
  return new LazyEmbedder(
    http.id,
    http.dims,
    () => CachedEmbedder.open(http, storeDir, machineCacheDir()),
  );
}

/** The reranker a store's settings choose, if any, with how many results it reranks. */
export function rerankerFor(config: Config): { reranker: Reranker; top: number } | undefined {
  const settings = config.rerank;
  if (!settings) return undefined;
  const key = apiKey(settings.api_key_env);
  return {
    reranker: new HttpReranker({
      baseUrl: settings.base_url,
      model: settings.model,
      ...(key ? { apiKey: key } : {}),
    }),
    top: settings.top,
  };
}

/** The model in the folder config.json names; one that is not there says where to fix it. */
async function configuredFolder(storeDir: string, dir: string): Promise<Embedder> {
  const embedder = await storeEmbedder(storeDir, dir);
  if (!(embedder instanceof UnavailableEmbedder)) return embedder;
  const { reason } = embedder;
  if (reason.code !== "model_missing") return embedder;
  return new UnavailableEmbedder(
    new EmbedderError(
      reason.code,
      `${reason.message}: it is the embedder's model_dir in ${configPath(storeDir)}; give a ` +
        "folder that holds a model there",
      { cause: reason },
    ),
  );
}
