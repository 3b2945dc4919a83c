/**
 * Where records of the log's active segment start, so that reading the log's
 * tail (the projections catching up with the event a command just appended)
 * reads the last few records, not the whole segment: a segment holds up to
 * 16 MiB, and scanning 5 MiB of it took 60-130 ms of every `remember`.
 * @module
 */
import { wipe } from "./bytes.ts";
import { decodeRecord, findNextValidRecord } from "./record.ts";
import type { SegmentScan } from "./segment.ts";

/** Every this many records of a segment, one is noted: a tail read decodes at most this many more. */
export const TAIL_INDEX_STRIDE = 32;

/** A record's sequence number and the byte offset it starts at in its segment. */
export interface RecordStart {
  seq: number;
  offset: number;
}

/** Where every {@linkcode TAIL_INDEX_STRIDE}-th record of one segment file starts. */
export class TailIndex {
  #starts: RecordStart[] = [];
  #records = 0;

  /** An index of the segment file named `file`, noting `records` (in order) to start with. */
  constructor(readonly file: string, records: Iterable<RecordStart> = []) {
    for (const record of records) this.note(record.seq, record.offset);
  }

  /** Notes the segment's next record, numbered `seq`, starting at `offset`. */
  note(seq: number, offset: number): void {
    if (this.#records++ % TAIL_INDEX_STRIDE === 0) this.#starts.push({ seq, offset });
  }

  /** The last noted record numbered `seq` or lower: a read of events from `seq` starts there. */
  startFor(seq: number): RecordStart | undefined {
    let low = 0;
    let high = this.#starts.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#starts[middle]!.seq <= seq) low = middle + 1;
      else high = middle;
    }
    return low === 0 ? undefined : this.#starts[low - 1];
  }
}

/**
 * Reads the records of the segment file at `path` from byte `start` (where a
 * record starts) to byte `end`, as {@linkcode scanSegment} would report them:
 * offsets within the file, and the first damage met (reading stops there).
 */
export async function scanTail(path: string, start: number, end: number): Promise<SegmentScan> {
  const bytes = new Uint8Array(Math.max(0, end - start));
  using file = await Deno.open(path, { read: true });
  await file.seek(start, Deno.SeekMode.Start);
  let filled = 0;
  while (filled < bytes.length) {
    const read = await file.read(bytes.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  const scan: SegmentScan = { records: [], damage: [], goodEnd: start };
  let offset = 0;
  while (true) {
    const read = decodeRecord(bytes.subarray(0, filled), offset);
    if (read.kind === "end") break;
    const lastSeq = scan.records.at(-1)?.seq ?? 0;
    if (read.kind === "ok" && read.seq > lastSeq) {
      scan.records.push({ seq: read.seq, payload: read.payload, offset: start + offset });
      offset = read.next;
      scan.goodEnd = start + offset;
      continue;
    }
    const resumesAt = findNextValidRecord(bytes.subarray(0, filled), offset + 1);
    scan.damage.push({
      offset: start + offset,
      reason: read.kind === "bad" ? read.reason : `sequence ${read.seq} out of order`,
      resumesAt: resumesAt === undefined ? undefined : start + resumesAt,
    });
    break;
  }
  wipe(bytes);
  return scan;
}
