import { concatBytes } from "../../../events/bytes.ts";
import type { RawLine } from "./entry.ts";

/** The lines of a JSONL file from a byte offset on. */
export interface LinesRead {
  /** Complete lines (ending in a newline), and a last one without it if it parses as JSON. */
  lines: RawLine[];
  /** A last line without newline that is not valid JSON yet: a record still being written. */
  partial: RawLine | null;
  /** The file's size when read. */
  size: number;
  /** Bytes read. */
  bytesRead: number;
}

const NEWLINE = 0x0a;
const decoder = new TextDecoder();

/**
 * Reads `path` from byte `offset` (where line `firstLine` starts) to its end,
 * splitting on newlines by byte so every line's offset is exact. A torn last
 * line is returned apart, never thrown on: its writer has not finished it.
 */
export async function readLinesFrom(
  path: string,
  offset: number,
  firstLine: number,
): Promise<LinesRead> {
  using file = await Deno.open(path, { read: true });
  const size = (await file.stat()).size;
  if (offset >= size) return { lines: [], partial: null, size, bytesRead: 0 };
  await file.seek(offset, Deno.SeekMode.Start);
  const bytes = new Uint8Array(size - offset);
  let filled = 0;
  while (filled < bytes.length) {
    const read = await file.read(bytes.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  const lines: RawLine[] = [];
  let start = 0;
  let index = firstLine;
  for (
    let at = bytes.indexOf(NEWLINE, 0);
    at !== -1 && at < filled;
    at = bytes.indexOf(NEWLINE, start)
  ) {
    lines.push({ index, offset: offset + start, text: decoder.decode(bytes.subarray(start, at)) });
    index++;
    start = at + 1;
  }
  let partial: RawLine | null = null;
  if (start < filled) {
    const last = {
      index,
      offset: offset + start,
      text: decoder.decode(bytes.subarray(start, filled)),
    };
    if (isJson(last.text)) lines.push(last);
    else partial = last;
  }
  return { lines, partial, size, bytesRead: filled };
}

/** Counts the newlines before byte `offset`: the index of the line that starts there. */
export async function lineIndexAt(path: string, offset: number): Promise<number> {
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(1 << 20);
  let remaining = offset;
  let count = 0;
  while (remaining > 0) {
    const read = await file.read(buffer.subarray(0, Math.min(buffer.length, remaining)));
    if (read === null) break;
    for (
      let i = buffer.indexOf(NEWLINE);
      i !== -1 && i < read;
      i = buffer.indexOf(NEWLINE, i + 1)
    ) {
      count++;
    }
    remaining -= read;
  }
  return count;
}

/** The file's first line (for the session header some formats keep there). */
export async function readFirstLine(path: string): Promise<RawLine | null> {
  using file = await Deno.open(path, { read: true });
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(64 * 1024);
  for (let total = 0; total < 16 << 20;) {
    const read = await file.read(buffer);
    if (read === null) break;
    const end = buffer.subarray(0, read).indexOf(NEWLINE);
    chunks.push(buffer.slice(0, end === -1 ? read : end));
    if (end !== -1) break;
    total += read;
  }
  const text = decoder.decode(concatBytes(chunks));
  return text ? { index: 0, offset: 0, text } : null;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
