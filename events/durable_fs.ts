import { dirname, join } from "node:path";

/** Writes every byte of `bytes` to `file`, looping over short writes. */
export async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/**
 * Appends `bytes` to `file`, whose first `length` bytes are whole, and syncs
 * it. A write cut short (a full disk) is cut off again before the error is
 * thrown, so the next append does not continue half a line.
 */
export async function appendWhole(
  file: Deno.FsFile,
  length: number,
  bytes: Uint8Array,
): Promise<void> {
  try {
    await writeAll(file, bytes);
    await file.syncData();
  } catch (error) {
    await file.truncate(length).catch(() => {});
    throw error;
  }
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
 * Replaces `path` with `content` so that a crash leaves either the old or the
 * new content: write a temporary file, fsync it, rename over, fsync the
 * directory. Content too large for one string (V8 caps strings at about 512
 * MiB) comes as parts, written in order. Resolves to the bytes written.
 */
export async function writeFileAtomic(
  path: string,
  content: Uint8Array | string | Iterable<string | Uint8Array>,
): Promise<number> {
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  let written = 0;
  try {
    const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
    try {
      for (const bytes of encodedBlocks(content)) {
        await writeAll(file, bytes);
        written += bytes.length;
      }
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.rename(tmp, path);
  } catch (error) {
    await Deno.remove(tmp).catch(() => {});
    throw error;
  }
  await syncDir(dirname(path));
  return written;
}

/** A temporary file of {@linkcode writeFileAtomic}: `<name>.<uuid>.tmp`. */
const ATOMIC_TEMP = /\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/;

/**
 * Deletes the temporary files {@linkcode writeFileAtomic} left in `dir` when a
 * crash cut it short: those last written before this process started (one of
 * its own may be under way).
 */
export async function removeAtomicLeftovers(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !ATOMIC_TEMP.test(entry.name)) continue;
    const path = join(dir, entry.name);
    const written = (await Deno.stat(path).catch(() => undefined))?.mtime?.getTime();
    if (written !== undefined && written < performance.timeOrigin) {
      await Deno.remove(path).catch(() => {});
    }
  }
}

const encoder = new TextEncoder();

/**
 * `content` as blocks of about 1 MiB, strings as UTF-8 (a part longer than
 * that is one block; bytes are passed on as they are).
 */
function* encodedBlocks(
  content: Uint8Array | string | Iterable<string | Uint8Array>,
): Iterable<Uint8Array> {
  if (content instanceof Uint8Array) return yield content;
  if (typeof content === "string") return yield encoder.encode(content);
  let pending: string[] = [];
  let size = 0;
  for (const part of content) {
    if (part instanceof Uint8Array) {
      if (pending.length > 0) yield encoder.encode(pending.join(""));
      pending = [];
      size = 0;
      yield part;
      continue;
    }
    pending.push(part);
    size += part.length;
    if (size < 1 << 20) continue;
    yield encoder.encode(pending.join(""));
    pending = [];
    size = 0;
  }
  if (pending.length > 0) yield encoder.encode(pending.join(""));
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
