/**
 * The embedding-model part of `cairn verify`: every file of the model the
 * store uses (the shipped folder, config.json's `model_dir`, or a hub model in
 * the store's cache) checked against the sha256 its manifest gives.
 * @module
 */
import { join, resolve } from "node:path";
import { EmbedderError } from "../embed/embedder.ts";
import { checkInstalledModel, uninstallDamaged } from "../embed/hub_download.ts";
import { shippedModelDir } from "../embed/load.ts";
import {
  checkFiles,
  describeFileProblem,
  type FileProblem,
  loadModelFolder,
  type ModelManifest,
} from "../embed/manifest.ts";
import { configPath, loadConfig } from "../service/config.ts";
import { UserError } from "../errors.ts";
import { DEFAULT_HUB_URL, modelCacheDir, modelStagingDir } from "../service/hub_embedder.ts";

/** What verify found: a line saying which model was checked, and each problem with its fix. */
export interface ModelCheck {
  summary: string;
  problems: string[];
}

/**
 * Checks the embedding model `storeDir` uses. A damaged download is taken out
 * of the cache (it is useless, and the next use fetches the damaged files again).
 */
export async function checkStoreModel(storeDir: string): Promise<ModelCheck> {
  let config;
  try {
    config = await loadConfig(storeDir);
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    return { summary: "model: not checked (config.json is unreadable)", problems: [error.message] };
  }
  const settings = config.embedder;
  if (settings.kind === "http") {
    return {
      summary: `model: http:${settings.model} at ${settings.base_url} (remote: no files to check)`,
      problems: [],
    };
  }
  if (settings.model && settings.manifest) {
    return await checkHubModel(storeDir, settings.model, settings.hub_url, settings.manifest);
  }
  if (settings.model_dir) {
    return await checkFolder(
      settings.model_dir,
      `replace it with an intact copy, or point embedder.model_dir in ${
        configPath(storeDir)
      } at another model folder`,
    );
  }
  return await checkFolder(
    shippedModelDir(),
    "reinstall cairn (the default model ships with it)",
  );
}

async function checkFolder(dir: string, fix: string): Promise<ModelCheck> {
  let folder;
  try {
    folder = await loadModelFolder(dir, { verify: false });
  } catch (error) {
    if (!(error instanceof EmbedderError)) throw error;
    const problem = error.code === "model_missing"
      ? `model file ${join(dir, "manifest.json")} is missing`
      : error.message;
    return { summary: `model: ${resolve(dir)}`, problems: [`${problem}; ${fix}`] };
  }
  const problems = await checkFiles(dir, folder.manifest.files);
  return {
    summary: `model: ${folder.id} in ${resolve(dir)}: ${
      filesState(folder.manifest.files, problems)
    }`,
    problems: problems.map((problem) => `${describeFileProblem(problem)}; ${fix}`),
  };
}

async function checkHubModel(
  storeDir: string,
  name: string,
  hubUrl: string | undefined,
  manifest: ModelManifest,
): Promise<ModelCheck> {
  const from = `${name} from ${hubUrl ?? DEFAULT_HUB_URL}`;
  const cacheDir = modelCacheDir(storeDir);
  const installed = await checkInstalledModel(cacheDir, name, manifest);
  switch (installed.state) {
    case "absent":
      return { summary: `model: ${from}, not downloaded yet (it is on first use)`, problems: [] };
    case "other":
      return {
        summary: `model: ${from}: ${installed.dir} holds another version of it; ` +
          "the one config.json names is downloaded on next use",
        problems: [],
      };
    case "intact":
      return {
        summary: `model: ${from} in ${installed.dir}: ${filesState(manifest.files, [])}`,
        problems: [],
      };
    case "damaged": {
      await uninstallDamaged(cacheDir, modelStagingDir(storeDir), name, installed.problems);
      const fix = `removed the damaged download; cairn downloads the file again from ${
        hubUrl ?? DEFAULT_HUB_URL
      } on next use`;
      return {
        summary: `model: ${from} in ${installed.dir}: ${
          filesState(manifest.files, installed.problems)
        }`,
        problems: installed.problems.map((problem) => `${describeFileProblem(problem)}; ${fix}`),
      };
    }
  }
}

/** `3 files check out`, or `1 of 3 files missing or damaged`. */
function filesState(files: Record<string, string>, problems: readonly FileProblem[]): string {
  const count = Object.keys(files).length;
  if (problems.length > 0) return `${problems.length} of ${count} files missing or damaged`;
  return `${count} ${count === 1 ? "file checks" : "files check"} out`;
}
