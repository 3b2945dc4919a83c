/**
 * Checking a model folder against its manifest before onnxruntime reads it: a
 * damaged graph can abort the whole process inside onnxruntime instead of
 * failing with an error. Hashing the weights costs a third of a second, so a
 * folder that passed is stamped (each file's size and modification time) and
 * later loads hash again only when the stamp no longer holds.
 * @module
 */
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../../events/durable_fs.ts";
import { verifyFiles } from "./manifest.ts";
import { sharingModels } from "./shared_models.ts";

/**
 * Folders (with their files' sizes and times) found intact in this process:
 * hashed once for every store while `shareLoadedModels` (in shared_models.ts) is on.
 */
const checkedHere = new Set<string>();

interface Stamp {
  dir: string;
  files: Record<string, { sha256: string; size: number; mtime: number }>;
}

/**
 * Resolves when every file of `files` (path → sha256) in `dir` is intact;
 * rejects with the model's `model_missing` / `model_damaged` error otherwise.
 * `stampFile` remembers a folder that passed.
 */
export async function checkModelOnce(
  dir: string,
  files: Record<string, string>,
  stampFile: string,
): Promise<void> {
  const seen = await statFiles(dir, files);
  if (seen && await stampHolds(stampFile, dir, seen)) return;
  const checked = seen && JSON.stringify({ dir, files: seen });
  if (!checked || !sharingModels() || !checkedHere.has(checked)) await verifyFiles(dir, files);
  if (checked && sharingModels()) checkedHere.add(checked);
  // A stamp that cannot be written only costs the next load another check.
  await Deno.mkdir(dirname(stampFile), { recursive: true })
    .then(() => writeFileAtomic(stampFile, JSON.stringify({ dir, files: seen })))
    .catch(() => {});
}

/** Each file's sha256 as expected, size and mtime now; undefined when one cannot be read. */
async function statFiles(
  dir: string,
  files: Record<string, string>,
): Promise<Stamp["files"] | undefined> {
  const seen: Stamp["files"] = {};
  for (const [name, sha256] of Object.entries(files)) {
    const info = await Deno.stat(join(dir, name)).catch(() => undefined);
    if (!info?.isFile) return undefined;
    seen[name] = { sha256, size: info.size, mtime: info.mtime?.getTime() ?? 0 };
  }
  return seen;
}

async function stampHolds(stampFile: string, dir: string, seen: Stamp["files"]): Promise<boolean> {
  try {
    const stamp = JSON.parse(await Deno.readTextFile(stampFile)) as Stamp;
    return stamp.dir === dir && JSON.stringify(stamp.files) === JSON.stringify(seen);
  } catch {
    return false;
  }
}
