/**
 * The embedder of a model that config.json names on a hub: downloaded into the
 * store's cache on first use, checked against the manifest in config.json, and
 * loaded from the cache, without network, afterwards.
 * @module
 */
import { join } from "node:path";
import { terminalDownloadProgress } from "../embed/download_progress.ts";
import { EmbedderError } from "../embed/embedder.ts";
import { type DownloadProgress, installModel } from "../embed/hub_download.ts";
import type { LazyEmbedder } from "../embed/lazy_embedder.ts";
import { lazyOnnxEmbedder } from "../embed/load.ts";
import type { ModelManifest } from "../embed/manifest.ts";
import { configPath } from "./config.ts";
import { UserError } from "../errors.ts";

/** The hub used when config.json names a model but no `hub_url`. */
export const DEFAULT_HUB_URL = "https://huggingface.co";

/** The embedder settings that name a hub model. */
export interface HubModelSettings {
  model: string;
  hub_url?: string | undefined;
  manifest: ModelManifest;
}

/** Where a store keeps the models it downloaded, one folder per model name. */
export function modelCacheDir(storeDir: string): string {
  return join(storeDir, "cache", "models");
}

/** Where downloads wait until every file checks out (and where an interrupted one resumes). */
export function modelStagingDir(storeDir: string): string {
  return join(storeDir, "cache", "downloads");
}

/**
 * An embedder for `settings.model`: its id and width come from the manifest at
 * once; the files are fetched (progress on a terminal's standard error) when
 * it first embeds. A failed download is a {@linkcode UserError} saying what to fix.
 */
export function hubEmbedder(
  settings: HubModelSettings,
  storeDir: string,
  onProgress: ((progress: DownloadProgress) => void) | undefined = terminalDownloadProgress(
    settings.model,
  ),
): LazyEmbedder {
  const hubUrl = settings.hub_url ?? DEFAULT_HUB_URL;
  return lazyOnnxEmbedder(storeDir, settings.manifest, async () => {
    try {
      return await installModel({
        baseUrl: hubUrl,
        name: settings.model,
        cacheDir: modelCacheDir(storeDir),
        stagingDir: modelStagingDir(storeDir),
        manifest: settings.manifest,
        ...(onProgress ? { onProgress } : {}),
      });
    } catch (error) {
      if (!(error instanceof EmbedderError)) throw error;
      const fix = error.code === "model_damaged"
        ? "check that embedder.manifest.files holds the sha256 its publisher gives for each file"
        : "check embedder.model and embedder.hub_url, and that the hub has every file in " +
          "embedder.manifest.files";
      throw new UserError(
        `could not install the embedding model ${settings.model} from ${hubUrl}: ` +
          `${error.message}. In ${configPath(storeDir)}, ${fix}`,
        { cause: error },
      );
    }
  });
}
