import { join } from "node:path";
import { wipe } from "./bytes.ts";
import { decodeEvent } from "./schema.ts";
import type { StoredEvent } from "./schema.ts";
import { logHead, type Manifest, readManifest } from "./manifest.ts";
import { DEFAULT_SEGMENT_BYTES, scanSegment } from "./segment.ts";
import { commitGeneration, SEGMENT_FILE, segmentsAhead, writeGeneration } from "./generation.ts";
import {
  type Acknowledged,
  ACKNOWLEDGED_FILE,
  type LastSegment,
  missingAcknowledged,
  readAcknowledged,
  writeAcknowledged,
} from "./acknowledged.ts";

/** One problem found in a log. */
export interface LogProblem {
  segment: string;
  offset?: number;
  message: string;
}

/** What a full check of a log found. */
export interface LogCheck {
  events: number;
  head: number;
  segments: number;
  problems: LogProblem[];
}

/** What a repair kept, and the events it could not (inclusive ranges of sequence numbers). */
export interface LogRepair extends LogCheck {
  lost: Array<[number, number]>;
}

interface Readable {
  seq: number;
  payload: unknown;
}

/**
 * Reads every segment of the log in `dir` without changing anything, decoding
 * every event, and lists each problem with its place. Calls `onEvent` for each
 * readable event so the caller can check what events reference.
 */
export async function checkLog(
  dir: string,
  onEvent: (event: StoredEvent) => Promise<void> = () => Promise.resolve(),
): Promise<LogCheck> {
  const { events, problems, segments, last } = await readDecodable(dir);
  for (const event of events) await onEvent(event);
  const book = await bookkeeping(dir);
  const lastSeq = events.at(-1)?.seq ?? 0;
  // As the log counts it when it opens: the events dropped on purpose count too.
  const head = book.manifest ? logHead(lastSeq, book.manifest) : lastSeq;
  const missing = acknowledgedMissing(book, last);
  if (missing) {
    problems.push({
      segment: ACKNOWLEDGED_FILE,
      message: `acknowledged records are lost: ${missing}`,
    });
  }
  return { events: events.length, head, segments, problems };
}

/** What the log's own files say of it: its last acknowledgement and its manifest, if readable. */
interface Bookkeeping {
  acknowledged?: Acknowledged;
  manifest?: Manifest;
}

async function bookkeeping(dir: string): Promise<Bookkeeping> {
  const acknowledged = await readAcknowledged(dir);
  const manifest = await readManifest(dir).catch(() => undefined);
  return { ...(acknowledged ? { acknowledged } : {}), ...(manifest ? { manifest } : {}) };
}

/** What the log acknowledged and its last segment no longer holds, in words; undefined when nothing. */
function acknowledgedMissing(
  { acknowledged, manifest }: Bookkeeping,
  last: LastSegment | undefined,
): string | undefined {
  const minHead = manifest?.minHead ?? 0;
  if (!last) {
    return acknowledged && acknowledged.head > minHead
      ? `no segment holds events up to ${acknowledged.head}`
      : undefined;
  }
  return missingAcknowledged(acknowledged, last, minHead);
}

/**
 * Rewrites the log in `dir` keeping every event that can still be read, past
 * any damage or missing segment, as a new generation committed atomically.
 * The caller must hold the store lock.
 */
export async function repairLog(
  dir: string,
  segmentBytes = DEFAULT_SEGMENT_BYTES,
): Promise<LogRepair> {
  const { events, problems, segments, last } = await readDecodable(dir);
  const book = await bookkeeping(dir);
  const lost = lostRanges(book, events, last);
  // Sequence numbers are never given twice (a team's sync tells events apart by them): the
  // repaired log goes on after the last one acknowledged or dropped on purpose.
  const head = Math.max(
    events.at(-1)?.seq ?? 0,
    book.acknowledged?.head ?? 0,
    book.manifest?.minHead ?? 0,
  );
  const generation = Date.now();
  const records = toRecords(events);
  const written = await writeGeneration(dir, records, generation, segmentBytes);
  await commitGeneration(dir, written, generation, head);
  const newest = written.at(-1);
  await writeAcknowledged(dir, {
    head,
    segmentBytes: newest?.bytes ?? 0,
    ...(newest ? { segment: { firstSeq: newest.firstSeq, generation } } : {}),
  });
  return { events: events.length, head, segments, problems, lost };
}

/**
 * The events a repair cannot keep: in a log never compacted, every gap
 * between readable events (a compacted log has gaps of its own, so there only
 * the tail counts), and those past the last readable one up to the last the
 * log acknowledged, when the last segment no longer holds them.
 */
function lostRanges(
  book: Bookkeeping,
  events: readonly StoredEvent[],
  last: LastSegment | undefined,
): Array<[number, number]> {
  const lost: Array<[number, number]> = [];
  const compacted = (book.manifest?.generation ?? 0) > 0;
  let previous = 0;
  for (const { seq } of events) {
    if (!compacted && seq > previous + 1) lost.push([previous + 1, seq - 1]);
    previous = seq;
  }
  // Past the last readable event, only what the log acknowledged and no longer holds is lost
  // (not what a compaction or a purge dropped on purpose).
  const acknowledged = book.acknowledged?.head ?? 0;
  if (acknowledged > previous && acknowledgedMissing(book, last)) {
    lost.push([previous + 1, acknowledged]);
  }
  return lost;
}

async function* toRecords(events: readonly StoredEvent[]): AsyncIterable<Readable> {
  for (const { seq, ...payload } of events) yield { seq, payload };
}

/** A log read as far as it can be: its events, its problems, how many segments, what its last one holds. */
interface TolerantRead {
  problems: LogProblem[];
  segments: number;
  last?: LastSegment;
}

async function readDecodable(dir: string): Promise<TolerantRead & { events: StoredEvent[] }> {
  const { records, problems, segments, last } = await readTolerant(dir);
  const events: StoredEvent[] = [];
  for (const record of records) {
    try {
      events.push({ ...decodeEvent(record.payload), seq: record.seq });
    } catch (error) {
      problems.push({ segment: "", message: `event ${record.seq}: ${(error as Error).message}` });
    }
  }
  return { events, problems, segments, ...(last ? { last } : {}) };
}

async function readTolerant(dir: string): Promise<TolerantRead & { records: Readable[] }> {
  const problems: LogProblem[] = [];
  let files: Array<{ file: string; bytes?: number | undefined }>;
  try {
    const manifest = await readManifest(dir);
    files = manifest ? manifest.segments : await segmentFilesOfNewestGeneration(dir);
    for (const file of manifest ? await segmentsAhead(dir, manifest) : []) {
      problems.push({ segment: file, message: "holds events, but the manifest does not list it" });
      files = [...files, { file }];
    }
  } catch (error) {
    problems.push({ segment: "MANIFEST", message: (error as Error).message });
    files = await segmentFilesOfNewestGeneration(dir);
  }
  const records: Readable[] = [];
  let last: LastSegment | undefined;
  for (const [index, { file, bytes: sealedAt }] of files.entries()) {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(join(dir, file));
    } catch (error) {
      problems.push({ segment: file, message: `cannot read segment: ${(error as Error).message}` });
      continue;
    }
    if (sealedAt !== undefined && bytes.length !== sealedAt) {
      problems.push({
        segment: file,
        offset: Math.min(bytes.length, sealedAt),
        message: `${bytes.length} bytes, but it was sealed at ${sealedAt}`,
      });
    }
    const scan = scanSegment(bytes);
    const length = bytes.length;
    wipe(bytes);
    const named = SEGMENT_FILE.exec(file);
    if (index === files.length - 1 && named) {
      last = {
        firstSeq: Number(named[1]),
        generation: Number(named[2]),
        lastSeq: scan.records.at(-1)?.seq ?? 0,
        goodEnd: scan.goodEnd,
      };
    }
    for (const damage of scan.damage) {
      const lost = (damage.resumesAt ?? length) - damage.offset;
      problems.push({
        segment: file,
        offset: damage.offset,
        message: `${damage.reason}; ${lost} bytes unreadable`,
      });
    }
    for (const record of scan.records) {
      const last = records.at(-1);
      if (last && record.seq <= last.seq) {
        problems.push({
          segment: file,
          offset: record.offset,
          message: `event ${record.seq} out of order`,
        });
        continue;
      }
      records.push({ seq: record.seq, payload: record.payload });
    }
  }
  return { records, problems, segments: files.length, ...(last ? { last } : {}) };
}

async function segmentFilesOfNewestGeneration(dir: string): Promise<Array<{ file: string }>> {
  const files: Array<{ name: string; gen: number; first: number }> = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const match = SEGMENT_FILE.exec(entry.name);
      if (match) files.push({ name: entry.name, first: Number(match[1]), gen: Number(match[2]) });
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const newest = Math.max(...files.map((file) => file.gen));
  return files.filter((file) => file.gen === newest).sort((a, b) => a.first - b.first)
    .map((file) => ({ file: file.name }));
}
