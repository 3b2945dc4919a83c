/**
 * Downloads a model folder from a Hugging Face style hub
 * (`<base>/<name>/resolve/main/<file>`) into a cache directory: resumable
 * (`.part` files continued with HTTP Range), each file checked against the
 * sha256 of an expected manifest before it takes its final name; files in
 * subfolders (`onnx/model.onnx`) land in the same subfolders. A model is
 * installed into a cache only once complete, so the cache never holds part of one.
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { dirname, join, relative } from "node:path";
import { writeAll } from "../../events/durable_fs.ts";
import { EmbedderError } from "./embedder.ts";
import {
  checkFiles,
  type FileProblem,
  folderPathProblem,
  type ModelManifest,
  parseManifest,
  sha256File,
} from "./manifest.ts";
import { retryable } from "./http_retry.ts";

/** Progress of one file, reported as bytes arrive. */
export interface DownloadProgress {
  file: string;
  received: number;
  /** Size of the file, when the server said. */
  total: number | undefined;
}

/** What to download, from where, to where. */
export interface DownloadOptions {
  /** Hub root, e.g. `https://huggingface.co`. */
  baseUrl: string;
  /** Repository name on the hub, e.g. `BAAI/bge-small-en-v1.5`. */
  name: string;
  /** Directory of downloaded models; the model lands in `<cacheDir>/<name>`. */
  cacheDir: string;
  /** The manifest expected: which files to fetch and their sha256. Written last, as `manifest.json`. */
  manifest: ModelManifest;
  /** Called as bytes arrive. */
  onProgress?: (progress: DownloadProgress) => void;
  /** Attempts per file (network errors, 429, 5xx), each resuming where the last stopped; default 5. */
  tries?: number;
  /** First backoff between attempts, doubled each time; default 100 ms. */
  baseDelayMs?: number;
}

/**
 * The model folder of `options.name` in `options.cacheDir`, used as it is when
 * it holds exactly `options.manifest` (no network, no hashing), else
 * downloaded first into `stagingDir` (where an interrupted or refused download
 * stays, to resume) and moved into the cache once every file checks out.
 */
export async function installModel(
  options: DownloadOptions & { stagingDir: string },
): Promise<string> {
  const dir = modelFolder(options.cacheDir, options.name);
  if (await holds(dir, options.manifest)) return dir;
  const staged = await downloadModel({ ...options, cacheDir: options.stagingDir });
  await Deno.remove(dir, { recursive: true }).catch(ignoreNotFound);
  await Deno.mkdir(dirname(dir), { recursive: true });
  await Deno.rename(staged, dir);
  return dir;
}

/** True when `dir/manifest.json` (written last by a download) is `manifest`. */
async function holds(dir: string, manifest: ModelManifest): Promise<boolean> {
  const where = join(dir, "manifest.json");
  const text = await Deno.readTextFile(where).catch(() => undefined);
  if (text === undefined) return false;
  try {
    return isDeepStrictEqual(parseManifest(text, where), manifest);
  } catch {
    return false; // an unreadable manifest: download again
  }
}

/** Where the model `name` (e.g. `BAAI/bge-small-en-v1.5`) lives under `cacheDir`. */
export function modelFolder(cacheDir: string, name: string): string {
  return join(cacheDir, ...name.split("/").map(safe));
}

/** What a cache holds of a model: what `cairn verify` reports. */
export type InstalledModel =
  | { state: "absent" }
  /** A copy made for another manifest: the next use replaces it. */
  | { state: "other"; dir: string }
  | { state: "intact"; dir: string }
  | { state: "damaged"; dir: string; problems: FileProblem[] };

/** Checks every file of the copy of `name` in `cacheDir` against `manifest` (hashing each). */
export async function checkInstalledModel(
  cacheDir: string,
  name: string,
  manifest: ModelManifest,
): Promise<InstalledModel> {
  const dir = modelFolder(cacheDir, name);
  if (!(await holds(dir, manifest))) {
    const present = await Deno.stat(dir).then(() => true, () => false);
    return present ? { state: "other", dir } : { state: "absent" };
  }
  const problems = await checkFiles(dir, manifest.files);
  return problems.length === 0 ? { state: "intact", dir } : { state: "damaged", dir, problems };
}

/**
 * Takes a damaged model out of the cache: its folder goes back to `stagingDir`
 * without the damaged files and without `manifest.json`, so the next
 * {@linkcode installModel} downloads only those files again.
 */
export async function uninstallDamaged(
  cacheDir: string,
  stagingDir: string,
  name: string,
  problems: readonly FileProblem[],
): Promise<void> {
  const dir = modelFolder(cacheDir, name);
  const staged = modelFolder(stagingDir, name);
  await Deno.remove(join(dir, "manifest.json")).catch(ignoreNotFound);
  await Deno.remove(staged, { recursive: true }).catch(ignoreNotFound);
  await Deno.mkdir(dirname(staged), { recursive: true });
  await Deno.rename(dir, staged);
  for (const problem of problems) {
    const path = join(staged, relative(dir, problem.path));
    await Deno.remove(path).catch(ignoreNotFound);
  }
}

/**
 * Downloads every file of `options.manifest` that is not already present and
 * intact, then writes `manifest.json`; returns the model folder.
 */
export async function downloadModel(options: DownloadOptions): Promise<string> {
  for (const file of Object.keys(options.manifest.files)) {
    const problem = folderPathProblem(file);
    if (problem) {
      throw new EmbedderError("model_invalid", `the manifest's file path "${file}" ${problem}`);
    }
  }
  const dir = modelFolder(options.cacheDir, options.name);
  await Deno.mkdir(dir, { recursive: true });
  for (const [file, sha256] of Object.entries(options.manifest.files)) {
    const path = join(dir, file);
    if (await sha256File(path).catch(() => undefined) === sha256) continue;
    await Deno.mkdir(dirname(path), { recursive: true });
    await downloadFile(options, file, path, sha256);
  }
  await Deno.writeTextFile(
    join(dir, "manifest.json"),
    JSON.stringify(options.manifest, null, 2) + "\n",
  );
  return dir;
}

function ignoreNotFound(error: unknown): void {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
}

function safe(part: string): string {
  if (part === "" || part === "." || part === "..") {
    throw new EmbedderError("download_failed", `invalid model name segment "${part}"`);
  }
  return part.replace(/[^A-Za-z0-9._-]/g, "_");
}

async function downloadFile(
  options: DownloadOptions,
  file: string,
  path: string,
  sha256: string,
): Promise<void> {
  const encoded = file.split("/").map(encodeURIComponent).join("/");
  const url = `${options.baseUrl.replace(/\/+$/, "")}/${options.name}/resolve/main/${encoded}`;
  const part = `${path}.part`;
  const tries = options.tries ?? 5;
  let lastError: unknown;
  for (let attempt = 0; attempt < tries; attempt++) {
    if (attempt > 0) {
      await new Promise((r) => setTimeout(r, (options.baseDelayMs ?? 100) * 2 ** (attempt - 1)));
    }
    try {
      if (await fetchInto(url, part, file, options.onProgress)) break;
    } catch (error) {
      if (error instanceof EmbedderError) throw error;
      lastError = error;
    }
    if (attempt === tries - 1) {
      throw new EmbedderError(
        "download_failed",
        `could not download ${url} after ${tries} attempts (${lastError}); ` +
          `run the command again to resume from ${part}`,
        { cause: lastError },
      );
    }
  }
  const actual = await sha256File(part);
  if (actual !== sha256) {
    await Deno.remove(part);
    throw new EmbedderError(
      "model_damaged",
      `downloaded ${file} has sha256 ${actual}, expected ${sha256}; the hub's copy differs from ` +
        `the manifest (removed the download; check the model name and revision)`,
    );
  }
  await Deno.rename(part, path);
}

/** One attempt: resumes `part` from its size; true when the file is complete. */
async function fetchInto(
  url: string,
  part: string,
  file: string,
  onProgress: DownloadOptions["onProgress"],
): Promise<boolean> {
  const have = await Deno.stat(part).then((s) => s.size, () => 0);
  const response = await fetch(url, have > 0 ? { headers: { range: `bytes=${have}-` } } : {});
  if (response.status === 416) {
    await response.body?.cancel();
    return true; // the part already holds every byte; the checksum decides
  }
  if (retryable(response.status)) {
    await response.body?.cancel();
    throw new Error(`HTTP ${response.status}`);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new EmbedderError("download_failed", `${url} answered HTTP ${response.status}`);
  }
  const resumed = response.status === 206;
  const length = Number(response.headers.get("content-length") ?? Number.NaN);
  const total = Number.isFinite(length) ? length + (resumed ? have : 0) : undefined;
  let received = resumed ? have : 0;
  const out = await Deno.open(part, {
    write: true,
    create: true,
    append: resumed,
    truncate: !resumed,
  });
  try {
    for await (const chunk of response.body) {
      await writeAll(out, chunk);
      received += chunk.length;
      onProgress?.({ file, received, total });
    }
    await out.sync();
  } finally {
    out.close();
  }
  return true;
}
