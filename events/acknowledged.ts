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

const MAGIC = 0x4b434143; // "CACK", little-endian
/** Magic u32, head u64, bytes of the active segment u64, CRC32 of the rest u32. */
const SIZE = 4 + 8 + 8 + 4;

/** The head acknowledged last, and how long the active segment was then. */
export interface Acknowledged {
  head: number;
  segmentBytes: number;
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
  if (bytes.length !== SIZE) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) return undefined;
  if (view.getUint32(SIZE - 4, true) !== (crc32(bytes.subarray(0, SIZE - 4)) >>> 0)) {
    return undefined;
  }
  return {
    head: Number(view.getBigUint64(4, true)),
    segmentBytes: Number(view.getBigUint64(12, true)),
  };
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
