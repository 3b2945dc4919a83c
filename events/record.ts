import { crc32 } from "node:zlib";
import { wipe } from "./bytes.ts";

/**
 * The on-disk framing of one log record, little-endian:
 * magic u32 | payload length u32 | crc32 u32 | seq u64 | payload (UTF-8 JSON).
 * The checksum covers the length, the sequence number and the payload, so a torn
 * or bit-flipped record never decodes.
 */
export const RECORD_MAGIC = 0x4e524143; // "CARN"
/** Bytes before a record's payload. */
export const RECORD_HEADER_BYTES = 20;
/** A record larger than this is refused at append and treated as damage on read. */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Frames one payload with its sequence number and checksum. */
export function encodeRecord(seq: number, payload: unknown): Uint8Array {
  const body = encoder.encode(JSON.stringify(payload));
  if (body.length > MAX_RECORD_BYTES) {
    throw new RangeError(
      `event of ${body.length} bytes exceeds ${MAX_RECORD_BYTES}; store large content as a blob`,
    );
  }
  const out = new Uint8Array(RECORD_HEADER_BYTES + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, RECORD_MAGIC, true);
  view.setUint32(4, body.length, true);
  view.setBigUint64(12, BigInt(seq), true);
  out.set(body, RECORD_HEADER_BYTES);
  wipe(body);
  view.setUint32(8, checksum(out, body.length), true);
  return out;
}

function checksum(record: Uint8Array, length: number): number {
  const covered = record.subarray(4, 8);
  const rest = record.subarray(12, RECORD_HEADER_BYTES + length);
  return crc32(rest, crc32(covered)) >>> 0;
}

/** The outcome of reading one record at an offset. */
export type RecordRead =
  | { kind: "ok"; seq: number; payload: unknown; next: number }
  | { kind: "end" }
  | { kind: "bad"; reason: string };

/** Reads the record starting at `offset` of `bytes`; never throws. */
export function decodeRecord(bytes: Uint8Array, offset: number): RecordRead {
  if (offset === bytes.length) return { kind: "end" };
  if (bytes.length - offset < RECORD_HEADER_BYTES) {
    return { kind: "bad", reason: "incomplete record header" };
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset);
  if (view.getUint32(0, true) !== RECORD_MAGIC) return { kind: "bad", reason: "bad record magic" };
  const length = view.getUint32(4, true);
  if (length > MAX_RECORD_BYTES) return { kind: "bad", reason: "implausible record length" };
  const end = offset + RECORD_HEADER_BYTES + length;
  if (end > bytes.length) return { kind: "bad", reason: "record runs past the end of the file" };
  const record = bytes.subarray(offset, end);
  if (checksum(record, length) !== view.getUint32(8, true)) {
    return { kind: "bad", reason: "checksum mismatch" };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(decoder.decode(record.subarray(RECORD_HEADER_BYTES)));
  } catch {
    return { kind: "bad", reason: "payload is not valid JSON" };
  }
  return { kind: "ok", seq: Number(view.getBigUint64(12, true)), payload, next: end };
}

/** Finds the offset of the next record at or after `from` that decodes cleanly, if any. */
export function findNextValidRecord(bytes: Uint8Array, from: number): number | undefined {
  const first = RECORD_MAGIC & 0xff;
  for (let offset = from; offset + RECORD_HEADER_BYTES <= bytes.length; offset++) {
    if (bytes[offset] !== first) continue;
    if (decodeRecord(bytes, offset).kind === "ok") return offset;
  }
  return undefined;
}
