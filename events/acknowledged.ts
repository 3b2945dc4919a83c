/**
 * The last event a log acknowledged, kept beside its segments. A log's active
 * segment alone cannot tell a torn write that nobody was told of from
 * acknowledged records lost to damage (a truncated file ends cleanly at a
 * record boundary too): this file can, because each group commit records its
 * head here, durably, before it resolves.
 * @module
 */
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { exists, syncDir, writeAll } from "./durable_fs.ts";

/** The file's name inside the log directory. */
export const ACKNOWLEDGED_FILE = "ACKNOWLEDGED";

const MAGIC_V1 = 0x4b434143; // "CACK", little-endian
/** Magic u32, head u64, bytes of the active segment u64, CRC32 of the rest u32. */
const SIZE_V1 = 4 + 8 + 8 + 4;
const MAGIC = 0x324b4143; // "CAK2", little-endian
/** As version 1, and the active segment's first sequence number and generation, u64 each. */
const SIZE = 4 + 8 + 8 + 8 + 8 + 4;

/** The head acknowledged last, and how long the active segment was then. */
export interface Acknowledged {
  head: number;
  segmentBytes: number;
  /** Which segment `segmentBytes` measures; unknown in files written before it was kept. */
  segment?: SegmentIdentity;
}

/** A segment as the manifest names it: its first sequence number and its generation. */
export interface SegmentIdentity {
  firstSeq: number;
  generation: number;
}

/**
 * Reads what the log in `dir` last acknowledged; undefined when the file is
 * missing (logs written before it existed) or does not check out.
 */
export async function readAcknowledged(dir: string): Promise<Acknowledged | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(join(dir, ACKNOWLEDGED_FILE));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  if (bytes.length !== SIZE && bytes.length !== SIZE_V1) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0, true);
  if (magic !== (bytes.length === SIZE ? MAGIC : MAGIC_V1)) return undefined;
  if (view.getUint32(bytes.length - 4, true) !== (crc32(bytes.subarray(0, -4)) >>> 0)) {
    return undefined;
  }
  const read = (at: number) => Number(view.getBigUint64(at, true));
  return {
    head: read(4),
    segmentBytes: read(12),
    ...(bytes.length === SIZE ? { segment: { firstSeq: read(20), generation: read(28) } } : {}),
  };
}

/** What a log's last segment holds, as read. */
export interface LastSegment extends SegmentIdentity {
  /** Its last readable event (0 when none). */
  lastSeq: number;
  /** Where its readable records end. */
  goodEnd: number;
}

/**
 * The words for the acknowledged records the log's last segment no longer
 * holds; undefined when it holds them all. When the acknowledgement measured
 * this very segment, by length: a rewrite (a compaction, a purge) drops events
 * on purpose, so the last event acknowledged need not be the last in the
 * file, but every byte acknowledged is. Otherwise (a crash between a new
 * segment or generation and its first acknowledgement, or an older file) by
 * sequence number, up to `minHead`, what the log's rewrites dropped.
 */
export function missingAcknowledged(
  acknowledged: Acknowledged | undefined,
  segment: LastSegment,
  minHead: number,
): string | undefined {
  if (!acknowledged) return undefined;
  const after = Math.max(segment.lastSeq, segment.firstSeq - 1);
  const measured = acknowledged.segment?.firstSeq === segment.firstSeq &&
    acknowledged.segment.generation === segment.generation;
  if (measured) {
    if (segment.goodEnd >= acknowledged.segmentBytes) return undefined;
    return `its readable records end at byte ${segment.goodEnd} (after event ${after}), but ` +
      `${acknowledged.segmentBytes} bytes were acknowledged, up to event ${acknowledged.head}`;
  }
  if (Math.max(after, minHead) >= acknowledged.head) return undefined;
  return `its last readable event is ${after}, but events up to ${acknowledged.head} were ` +
    "acknowledged";
}

/** The open file a log records each acknowledged head in. */
export class AcknowledgedFile {
  private constructor(private readonly file: Deno.FsFile) {}

  /** Opens (creating) the file in `dir`. */
  static async open(dir: string): Promise<AcknowledgedFile> {
    const path = join(dir, ACKNOWLEDGED_FILE);
    const created = !await exists(path);
    const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
    // Its name must be durable once, when it is made; every open after that needs no fsync.
    if (created) await syncDir(dir);
    return new AcknowledgedFile(file);
  }

  /** Records, durably, that every event up to `head` is acknowledged. */
  async record(acknowledged: Acknowledged): Promise<void> {
    const bytes = new Uint8Array(SIZE);
    const view = new DataView(bytes.buffer);
    view.setUint32(0, MAGIC, true);
    view.setBigUint64(4, BigInt(acknowledged.head), true);
    view.setBigUint64(12, BigInt(acknowledged.segmentBytes), true);
    view.setBigUint64(20, BigInt(acknowledged.segment?.firstSeq ?? 0), true);
    view.setBigUint64(28, BigInt(acknowledged.segment?.generation ?? 0), true);
    view.setUint32(SIZE - 4, crc32(bytes.subarray(0, SIZE - 4)) >>> 0, true);
    await this.file.seek(0, Deno.SeekMode.Start);
    await writeAll(this.file, bytes);
    await this.file.syncData();
  }

  /** Closes the file. */
  close(): void {
    this.file.close();
  }
}

/** Records `acknowledged` for the log in `dir` once (a repair or a new log). */
export async function writeAcknowledged(dir: string, acknowledged: Acknowledged): Promise<void> {
  const file = await AcknowledgedFile.open(dir);
  try {
    await file.record(acknowledged);
  } finally {
    file.close();
  }
}
