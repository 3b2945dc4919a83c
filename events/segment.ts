import { decodeRecord, findNextValidRecord } from "./record.ts";

/** Every segment file starts with this header: magic "CSEG" and the format version. */
export const SEGMENT_HEADER = new Uint8Array([0x43, 0x53, 0x45, 0x47, 1, 0, 0, 0]);

/**
 * Where a log rolls to a new segment. Opening the log scans only the last
 * segment, so this bounds the work of every open (about 60 ms per 16 MiB here).
 */
export const DEFAULT_SEGMENT_BYTES = 16 * 1024 * 1024;

/** A record found in a segment, still undecoded as an event. */
export interface SegmentRecord {
  seq: number;
  payload: unknown;
  offset: number;
}

/** A damaged stretch of a segment. */
export interface SegmentDamage {
  offset: number;
  reason: string;
  /** Where the next good record starts, or undefined if nothing good follows. */
  resumesAt: number | undefined;
}

/** What a tolerant scan of a segment found. */
export interface SegmentScan {
  records: SegmentRecord[];
  damage: SegmentDamage[];
  /** Offset just past the last good record (or past the header). */
  goodEnd: number;
}

/** The file name of a segment whose first event is `firstSeq`, in compaction generation `gen`. */
export function segmentName(firstSeq: number, gen: number): string {
  return `${String(firstSeq).padStart(16, "0")}.${gen}.seg`;
}

/**
 * Reads every record of a segment's bytes, noting damage instead of stopping at
 * it: after a bad record it resumes at the next record that checks out.
 */
export function scanSegment(bytes: Uint8Array): SegmentScan {
  const records: SegmentRecord[] = [];
  const damage: SegmentDamage[] = [];
  if (!hasHeader(bytes)) {
    const resumesAt = findNextValidRecord(bytes, 0);
    damage.push({ offset: 0, reason: "missing segment header", resumesAt });
    if (resumesAt === undefined) return { records, damage, goodEnd: 0 };
  }
  let offset = damage.length ? damage[0]!.resumesAt! : SEGMENT_HEADER.length;
  let goodEnd = offset;
  let lastSeq = 0;
  while (offset < bytes.length) {
    const read = decodeRecord(bytes, offset);
    if (read.kind === "end") break;
    if (read.kind === "ok" && read.seq > lastSeq) {
      records.push({ seq: read.seq, payload: read.payload, offset });
      lastSeq = read.seq;
      offset = read.next;
      goodEnd = offset;
      continue;
    }
    const reason = read.kind === "bad" ? read.reason : `sequence ${read.seq} out of order`;
    const resumesAt = findNextValidRecord(bytes, offset + 1);
    damage.push({ offset, reason, resumesAt });
    if (resumesAt === undefined) break;
    offset = resumesAt;
  }
  return { records, damage, goodEnd };
}

function hasHeader(bytes: Uint8Array): boolean {
  if (bytes.length < SEGMENT_HEADER.length) return false;
  return SEGMENT_HEADER.every((byte, i) => bytes[i] === byte);
}
