/**
 * Reading a file line by line, a block at a time, whatever its size (one
 * string cannot hold more than about 512 MiB).
 * @module
 */
import { concatBytes } from "./bytes.ts";

/** A line of a file, without its newline. */
export interface FileLine {
  text: string;
  /** Where the line starts, in bytes. */
  offset: number;
  /** Where the next line starts: past this one's newline. */
  next: number;
  /** False for a last line the file does not end with a newline (a write cut short). */
  complete: boolean;
}

const NEWLINE = 0x0a;
const BLOCK = 1 << 20;

/** The lines of the file at `path`, split on `\n` by byte. */
export async function* fileLines(path: string): AsyncGenerator<FileLine> {
  const decoder = new TextDecoder();
  using file = await Deno.open(path, { read: true });
  const block = new Uint8Array(BLOCK);
  // The bytes of the line read so far, when it started in an earlier block.
  let pending: Uint8Array[] = [];
  let offset = 0;
  for (let read = await file.read(block); read !== null; read = await file.read(block)) {
    const bytes = block.subarray(0, read);
    let start = 0;
    for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, start)) {
      const tail = bytes.subarray(start, at);
      const line = pending.length === 0 ? tail : concatBytes([...pending, tail]);
      const next = offset + line.length + 1;
      yield { text: decoder.decode(line), offset, next, complete: true };
      offset = next;
      pending = [];
      start = at + 1;
    }
    if (start < read) pending.push(bytes.slice(start));
  }
  const last = concatBytes(pending);
  if (last.length > 0) {
    yield { text: decoder.decode(last), offset, next: offset + last.length, complete: false };
  }
}
