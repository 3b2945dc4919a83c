import { join } from "node:path";
import { decodeEvent } from "./schema.ts";
import type { StoredEvent } from "./schema.ts";
import { readManifest } from "./manifest.ts";
import { DEFAULT_SEGMENT_BYTES, scanSegment } from "./segment.ts";
import { commitGeneration, SEGMENT_FILE, segmentsAhead, writeGeneration } from "./generation.ts";
import { ACKNOWLEDGED_FILE, readAcknowledged, writeAcknowledged } from "./acknowledged.ts";

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
  const { events, problems, segments } = await readDecodable(dir);
  for (const event of events) await onEvent(event);
  const head = events.at(-1)?.seq ?? 0;
  const acknowledged = (await readAcknowledged(dir))?.head ?? 0;
  const kept = Math.max(head, (await readManifest(dir).catch(() => undefined))?.minHead ?? 0);
  if (acknowledged > kept) {
    problems.push({
      segment: ACKNOWLEDGED_FILE,
      message: `events ${kept + 1} to ${acknowledged} were acknowledged but are not in the log`,
    });
  }
  return { events: events.length, head, segments, problems };
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
  const { events, problems, segments } = await readDecodable(dir);
  const head = events.at(-1)?.seq ?? 0;
  const lost = await lostRanges(dir, events);
  const generation = Date.now();
  const records = toRecords(events);
  const written = await writeGeneration(dir, records, generation, segmentBytes);
  await commitGeneration(dir, written, generation, head);
  await writeAcknowledged(dir, { head, segmentBytes: written.at(-1)?.bytes ?? 0 });
  return { events: events.length, head, segments, problems, lost };
}

/**
 * The events a repair cannot keep: in a log never compacted, every gap
 * between readable events (a compacted log has gaps of its own, so there only
 * the tail counts), and those past the last readable one up to the last the
 * log acknowledged.
 */
async function lostRanges(
  dir: string,
  events: readonly StoredEvent[],
): Promise<Array<[number, number]>> {
  const lost: Array<[number, number]> = [];
  const manifest = await readManifest(dir).catch(() => undefined);
  const compacted = (manifest?.generation ?? 0) > 0;
  let previous = 0;
  for (const { seq } of events) {
    if (!compacted && seq > previous + 1) lost.push([previous + 1, seq - 1]);
    previous = seq;
  }
  const acknowledged = (await readAcknowledged(dir))?.head ?? 0;
  if (acknowledged > previous) lost.push([previous + 1, acknowledged]);
  return lost;
}

async function* toRecords(events: readonly StoredEvent[]): AsyncIterable<Readable> {
  for (const { seq, ...payload } of events) yield { seq, payload };
}

async function readDecodable(
  dir: string,
): Promise<{ events: StoredEvent[]; problems: LogProblem[]; segments: number }> {
  const { records, problems, segments } = await readTolerant(dir);
  const events: StoredEvent[] = [];
  for (const record of records) {
    try {
      events.push({ ...decodeEvent(record.payload), seq: record.seq });
    } catch (error) {
      problems.push({ segment: "", message: `event ${record.seq}: ${(error as Error).message}` });
    }
  }
  return { events, problems, segments };
}

async function readTolerant(
  dir: string,
): Promise<{ records: Readable[]; problems: LogProblem[]; segments: number }> {
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
  for (const { file, bytes: sealedAt } of files) {
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
    for (const damage of scan.damage) {
      const lost = (damage.resumesAt ?? bytes.length) - damage.offset;
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
  return { records, problems, segments: files.length };
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
