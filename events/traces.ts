/**
 * Looking for texts in files byte for byte, as written and as escaped in JSON:
 * how a purge checks that files it does not write itself (a database's pages)
 * kept no copy of what it removed.
 * @module
 */
import { Buffer } from "node:buffer";
import { join } from "node:path";
import type { EventLog } from "./log.ts";

/** Bytes read from a file at a time; a text is found across the edge of two reads. */
const READ_BYTES = 4 << 20;

/** The files under `dir` (recursively, by path relative to it) that hold any of `texts`. */
export async function filesHoldingAny(dir: string, texts: Iterable<string>): Promise<string[]> {
  const needles = [
    ...new Set([...texts].flatMap((text) => [text, JSON.stringify(text).slice(1, -1)])),
  ]
    .map((text) => Buffer.from(text, "utf8"));
  if (needles.length === 0) return [];
  const found: string[] = [];
  for (const path of await filesUnder(dir)) {
    if (await fileHolds(join(dir, path), needles)) found.push(path);
  }
  return found;
}

/** Of `texts`, those that no event of `log` carries any more, whole or inside a longer text. */
export async function goneFromLog(log: EventLog, texts: Iterable<string>): Promise<string[]> {
  const left = new Map([...texts].map((text) => [text, JSON.stringify(text).slice(1, -1)]));
  for await (const event of log.read(1)) {
    if (left.size === 0) break;
    const written = JSON.stringify(event.data);
    for (const [text, escaped] of left) if (written.includes(escaped)) left.delete(text);
  }
  return [...left.keys()];
}

async function fileHolds(path: string, needles: readonly Buffer[]): Promise<boolean> {
  const overlap = Math.max(...needles.map((needle) => needle.length)) - 1;
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  try {
    const block = Buffer.alloc(overlap + READ_BYTES);
    let kept = 0;
    while (true) {
      const read = await file.read(block.subarray(kept));
      if (read === null) return false;
      const filled = block.subarray(0, kept + read);
      if (needles.some((needle) => filled.includes(needle))) return true;
      kept = Math.min(overlap, filled.length);
      filled.copyWithin(0, filled.length - kept);
    }
  } finally {
    file.close();
  }
}

async function filesUnder(dir: string, prefix = ""): Promise<string[]> {
  const paths: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(dir, prefix))) {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory) paths.push(...await filesUnder(dir, path));
      else if (entry.isFile) paths.push(path);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return paths.sort();
}
