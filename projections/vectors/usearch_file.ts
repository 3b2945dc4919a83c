/**
 * A check of a saved USearch index's layout before USearch is asked to load
 * it: USearch trusts the sizes it reads, and random bytes make it allocate
 * without bound and abort the process instead of throwing.
 * @module
 */
import { ProjectionDamage } from "../damage.ts";

const MAGIC = "usearch";
/** The vectors' matrix header: rows and bytes per row, u32 each. */
const MATRIX_HEAD = 8;
/** Magic, version (3 u16), metric, scalar, key and slot kinds (4 u8), then the counts. */
const PRESENT_AT = 7 + 6 + 4;
const DIMENSIONS_AT = PRESENT_AT + 8 + 8;
const HEAD = DIMENSIONS_AT + 8;

/**
 * Throws {@linkcode ProjectionDamage} unless the file at `path` is laid out as
 * USearch saves an int8 index of `dims` dimensions: a matrix of one byte per
 * dimension, then its header (magic, vectors present and dimensions agreeing with it).
 */
export async function checkSavedIndex(path: string, dims: number): Promise<void> {
  using file = await Deno.open(path, { read: true });
  const size = (await file.stat()).size;
  const matrix = await readAt(file, 0, MATRIX_HEAD);
  const rows = matrix?.getUint32(0, true) ?? 0;
  const rowBytes = matrix?.getUint32(4, true) ?? 0;
  const headAt = MATRIX_HEAD + rows * rowBytes;
  const head = rowBytes === dims && headAt + HEAD <= size
    ? await readAt(file, headAt, HEAD)
    : undefined;
  const magic = head && new TextDecoder().decode(new Uint8Array(head.buffer, 0, MAGIC.length));
  if (
    !head || magic !== MAGIC || head.getBigUint64(PRESENT_AT, true) > BigInt(rows) ||
    head.getBigUint64(DIMENSIONS_AT, true) !== BigInt(dims)
  ) {
    throw new ProjectionDamage(`${path}: not an index of ${dims}-dimension vectors as cairn saves`);
  }
}

async function readAt(
  file: Deno.FsFile,
  offset: number,
  length: number,
): Promise<DataView | undefined> {
  await file.seek(offset, Deno.SeekMode.Start);
  const bytes = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const read = await file.read(bytes.subarray(filled));
    if (read === null) return undefined;
    filled += read;
  }
  return new DataView(bytes.buffer);
}
