/** Byte arrays laid end to end in one new array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Zeroes `bytes`, once read or written, before the allocator takes them back:
 * freed memory keeps its contents, and Kùzu writes pages partly filled from
 * reused memory, so a log's bytes read before a purge turned up in a graph
 * rebuilt after it (docs/decisions.md).
 */
export function wipe(...all: Uint8Array[]): void {
  for (const bytes of all) bytes.fill(0);
}
