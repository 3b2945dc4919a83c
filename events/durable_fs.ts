import { dirname } from "node:path";

/** Writes every byte of `bytes` to `file`, looping over short writes. */
export async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/** Flushes a directory's entries (new, renamed or removed files) to disk. */
export async function syncDir(path: string): Promise<void> {
  const dir = await Deno.open(path, { read: true });
  try {
    await dir.sync();
  } finally {
    dir.close();
  }
}

/**
 * Replaces `path` with `bytes` so that a crash leaves either the old or the new
 * content: write a temporary file, fsync it, rename over, fsync the directory.
 */
export async function writeFileAtomic(path: string, bytes: Uint8Array | string): Promise<void> {
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
  try {
    await writeAll(file, data);
    await file.sync();
  } finally {
    file.close();
  }
  try {
    await Deno.rename(tmp, path);
  } catch (error) {
    await Deno.remove(tmp).catch(() => {});
    throw error;
  }
  await syncDir(dirname(path));
}

/** True when `path` exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
