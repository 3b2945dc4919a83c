import { concatBytes, wipe } from "./bytes.ts";
import { join } from "node:path";
import { encodeRecord } from "./record.ts";
import { decodeEvent, validateEvent } from "./schema.ts";
import type { NewEvent, StoredEvent } from "./schema.ts";
import { DEFAULT_SEGMENT_BYTES, scanSegment, SEGMENT_HEADER, segmentName } from "./segment.ts";
import type { SegmentDamage, SegmentScan } from "./segment.ts";
import {
  commitGeneration,
  createSegment,
  manifestEntries,
  removeLeftovers,
  type Segment,
  writeGeneration,
} from "./generation.ts";
import { logHead, type Manifest, MANIFEST_FILE, readManifest, writeManifest } from "./manifest.ts";
import { syncDir, writeAll } from "./durable_fs.ts";
import {
  type Acknowledged,
  AcknowledgedFile,
  missingAcknowledged,
  readAcknowledged,
  type SegmentIdentity,
} from "./acknowledged.ts";
import { LogCorruptError } from "./log.ts";
import { scanTail, TailIndex } from "./tail_index.ts";
import type { Clock, EventLog, LogRecovery, RewriteStats } from "./log.ts";

/** Options for {@linkcode FileLog.open}. */
export interface FileLogOptions {
  /** Open without repairing or writing anything (for status while another process owns the store). */
  readOnly?: boolean;
  /** Roll to a new segment file past this size. Default {@linkcode DEFAULT_SEGMENT_BYTES}. */
  segmentBytes?: number;
  /** Stamps appended events; defaults to the system clock. */
  clock?: Clock;
}

interface PendingAppend {
  events: NewEvent[];
  resolve: (stored: StoredEvent[]) => void;
  reject: (error: unknown) => void;
}

/**
 * The on-disk event log: numbered segment files of checksummed records, listed
 * by an atomically replaced manifest. Appends are group-committed with fsync.
 */
export class FileLog implements EventLog {
  #manifest: Manifest;
  #segments: Segment[];
  #head: number;
  #active: Deno.FsFile | undefined;
  #acknowledged: AcknowledgedFile | undefined;
  /** Where the active segment's records start, for reads of the log's tail. */
  #tail: TailIndex | undefined;
  #pending: PendingAppend[] = [];
  /** True while a flush, a rewrite or the close owns the active segment. */
  #busy = false;
  #drained: Promise<void> = Promise.resolve();
  #closed = false;

  private constructor(
    private readonly dir: string,
    private readonly options: FileLogOptions,
    manifest: Manifest,
    segments: Segment[],
    head: number,
    readonly recovery: LogRecovery,
    tail: TailIndex | undefined,
  ) {
    this.#manifest = manifest;
    this.#segments = segments;
    this.#head = head;
    this.#tail = tail;
  }

  /**
   * Opens (creating if needed) the log in `dir`. A torn last record is cut off
   * and reported in `recovery`; any other damage throws {@linkcode LogCorruptError}.
   */
  static async open(dir: string, options: FileLogOptions = {}): Promise<FileLog> {
    if (!options.readOnly) await Deno.mkdir(dir, { recursive: true });
    const manifest = await readManifest(dir) ?? await startManifest(dir, options);
    const acknowledged = await readAcknowledged(dir);
    const recovery: LogRecovery = {};
    const segments: Segment[] = [];
    let lastSeq = 0;
    let tail: TailIndex | undefined;
    for (const [index, entry] of manifest.segments.entries()) {
      const path = join(dir, entry.file);
      const next = manifest.segments[index + 1];
      if (next && entry.bytes !== undefined) {
        await checkSealedSize(path, entry.bytes, entry, next);
        segments.push({ file: entry.file, firstSeq: entry.firstSeq, bytes: entry.bytes });
        continue;
      }
      const bytes = await readSegmentFile(path, entry, next);
      const scan = scanSegment(bytes);
      wipe(bytes);
      if (!next) {
        checkAcknowledged(path, scan, entry.firstSeq, manifest, acknowledged);
      }
      let length = bytes.length;
      if (scan.damage.length > 0) {
        const torn = !next && scan.damage.length === 1 &&
          scan.damage[0]!.resumesAt === undefined &&
          scan.damage[0]!.offset > 0;
        if (!torn) throw damageError(path, scan.damage[0]!, scan.records.length);
        length = scan.goodEnd;
        recovery.truncatedTail = {
          segment: entry.file,
          offset: scan.goodEnd,
          bytes: bytes.length - scan.goodEnd,
          reason: scan.damage[0]!.reason,
        };
        if (!options.readOnly) await truncate(path, scan.goodEnd);
      }
      lastSeq = checkOrder(path, scan, entry.firstSeq, lastSeq);
      segments.push({ file: entry.file, firstSeq: entry.firstSeq, bytes: length });
      if (!next) tail = new TailIndex(entry.file, scan.records);
    }
    if (!options.readOnly) await removeLeftovers(dir, manifest);
    const head = logHead(lastSeq, manifest);
    const log = new FileLog(dir, options, manifest, segments, head, recovery, tail);
    if (options.readOnly) return log;
    if (segments.length > 0) await log.#openActive();
    log.#acknowledged = await AcknowledgedFile.open(dir);
    // A log from before this file, or records a crash left between a commit's sync and its record.
    if (acknowledged?.head !== head) await log.#recordAcknowledged();
    return log;
  }

  get head(): number {
    return this.#head;
  }

  append(events: readonly NewEvent[]): Promise<StoredEvent[]> {
    if (this.options.readOnly) return Promise.reject(new Error("log was opened read-only"));
    if (this.#closed) return Promise.reject(new Error("log is closed"));
    let validated: NewEvent[];
    try {
      validated = events.map(validateEvent);
    } catch (error) {
      return Promise.reject(error);
    }
    if (validated.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.#pending.push({ events: validated, resolve, reject });
      this.#kick();
    });
  }

  async *read(from = 1): AsyncIterable<StoredEvent> {
    const segments = this.#segments.map((segment) => ({ ...segment }));
    let lastSeq = 0;
    for (const [index, segment] of segments.entries()) {
      const next = segments[index + 1];
      if (next && next.firstSeq <= from) continue;
      const path = join(this.dir, segment.file);
      // The active segment is read from its record nearest `from`; the rest whole.
      const start = next || this.#tail?.file !== segment.file
        ? undefined
        : this.#tail.startFor(from);
      const scan = start
        ? await scanTail(path, start.offset, segment.bytes)
        : await scanSegmentFile(path, segment.bytes);
      if (scan.damage.length > 0) throw damageError(path, scan.damage[0]!, scan.records.length);
      lastSeq = checkOrder(path, scan, segment.firstSeq, lastSeq);
      for (const record of scan.records) {
        if (record.seq < from) continue;
        try {
          yield { ...decodeEvent(record.payload), seq: record.seq };
        } catch (error) {
          throw new LogCorruptError(
            `event ${record.seq} in ${path} at offset ${record.offset}: ${
              (error as Error).message
            }`,
            path,
            record.offset,
          );
        }
      }
    }
  }

  size(): Promise<number> {
    return Promise.resolve(this.#segments.reduce((total, segment) => total + segment.bytes, 0));
  }

  rewrite(keep: (event: StoredEvent) => boolean): Promise<RewriteStats> {
    return this.#exclusively(async () => {
      const bytesBefore = await this.size();
      const counts = { kept: 0, dropped: 0 };
      const generation = this.#manifest.generation + 1;
      const survivors = keepOnly(this.read(1), keep, counts);
      const segments = await writeGeneration(this.dir, survivors, generation, this.#segmentBytes());
      this.#active?.close();
      this.#active = undefined;
      this.#manifest = await commitGeneration(this.dir, segments, generation, this.#head);
      this.#segments = segments;
      this.#tail = undefined;
      if (segments.length > 0) await this.#openActive();
      await this.#recordAcknowledged();
      return { ...counts, bytesBefore, bytesAfter: await this.size() };
    });
  }

  close(): Promise<void> {
    return this.#exclusively(() => {
      this.#closed = true;
      this.#active?.close();
      this.#active = undefined;
      this.#acknowledged?.close();
      this.#acknowledged = undefined;
      return Promise.resolve();
    });
  }

  /** Runs `work` once no flush or rewrite owns the active segment; appends queue meanwhile. */
  async #exclusively<T>(work: () => Promise<T>): Promise<T> {
    while (this.#busy) await this.#drained;
    this.#busy = true;
    const run = work();
    this.#drained = run.then(() => {}, () => {});
    try {
      return await run;
    } finally {
      this.#busy = false;
      this.#kick();
    }
  }

  #kick(): void {
    if (this.#busy || this.#pending.length === 0) return;
    if (this.#closed) {
      for (const pending of this.#pending.splice(0)) pending.reject(new Error("log is closed"));
      return;
    }
    void this.#exclusively(() => this.#flush());
  }

  #segmentBytes(): number {
    return this.options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  }

  async #openActive(): Promise<void> {
    const last = this.#segments.at(-1)!;
    this.#active = await Deno.open(join(this.dir, last.file), { write: true });
    await this.#active.seek(last.bytes, Deno.SeekMode.Start);
    if (this.#tail?.file !== last.file) {
      const path = join(this.dir, last.file);
      const scan = await scanSegmentFile(path, last.bytes);
      this.#tail = new TailIndex(last.file, scan.records);
    }
  }

  #recordAcknowledged(): Promise<void> {
    const last = this.#segments.at(-1);
    return this.#acknowledged!.record({
      head: this.#head,
      segmentBytes: last?.bytes ?? 0,
      ...(last ? { segment: this.#identity(last) } : {}),
    });
  }

  /** Which segment `segment` is, as an acknowledgement names it. */
  #identity(segment: Segment): SegmentIdentity {
    return { firstSeq: segment.firstSeq, generation: this.#manifest.generation };
  }

  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, this.#pending.length);
      const ts = (this.options.clock ?? (() => new Date()))().toISOString();
      let seq = this.#head;
      const stored = batch.map((pending) =>
        pending.events.map((event): StoredEvent => ({ ...event, seq: ++seq, ts }))
      );
      try {
        const records = stored.flat().map((event) => encodeRecord(event.seq, payloadOf(event)));
        const bytes = concatBytes(records);
        wipe(...records);
        await this.#ensureRoom(bytes.length, this.#head + 1);
        const active = this.#segments.at(-1)!;
        try {
          await writeAll(this.#active!, bytes);
          await this.#active!.syncData();
          await this.#acknowledged!.record({
            head: seq,
            segmentBytes: active.bytes + bytes.length,
            segment: this.#identity(active),
          });
        } catch (error) {
          await this.#active!.truncate(active.bytes).catch(() => {});
          await this.#active!.seek(active.bytes, Deno.SeekMode.Start).catch(() => {});
          throw error;
        } finally {
          wipe(bytes);
        }
        let offset = active.bytes;
        active.bytes += bytes.length;
        this.#head = seq;
        if (this.#tail?.file === active.file) {
          for (const [i, event] of stored.flat().entries()) {
            this.#tail.note(event.seq, offset);
            offset += records[i]!.length;
          }
        }
        batch.forEach((pending, i) => pending.resolve(stored[i]!));
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
  }

  async #ensureRoom(bytes: number, firstSeq: number): Promise<void> {
    const active = this.#segments.at(-1);
    const full = active && active.bytes > SEGMENT_HEADER.length &&
      active.bytes + bytes > this.#segmentBytes();
    if (active && !full) return;
    const name = segmentName(firstSeq, this.#manifest.generation);
    const file = await createSegment(join(this.dir, name));
    await syncDir(this.dir);
    const segments = [...this.#segments, { file: name, firstSeq, bytes: SEGMENT_HEADER.length }];
    const manifest = { ...this.#manifest, segments: manifestEntries(segments) };
    await writeManifest(this.dir, manifest);
    this.#manifest = manifest;
    this.#active?.close();
    this.#active = file;
    this.#segments = segments;
    this.#tail = new TailIndex(name);
  }
}

async function* keepOnly(
  events: AsyncIterable<StoredEvent>,
  keep: (event: StoredEvent) => boolean,
  counts: { kept: number; dropped: number },
): AsyncIterable<{ seq: number; payload: unknown }> {
  for await (const event of events) {
    if (!keep(event)) {
      counts.dropped++;
      continue;
    }
    counts.kept++;
    yield { seq: event.seq, payload: payloadOf(event) };
  }
}

function payloadOf(event: StoredEvent): unknown {
  const { seq: _seq, ...payload } = event;
  return payload;
}

async function startManifest(dir: string, options: FileLogOptions): Promise<Manifest> {
  const manifest: Manifest = { format: 1, generation: 0, minHead: 0, segments: [] };
  let strays: string[] = [];
  try {
    strays = [...Deno.readDirSync(dir)].map((entry) => entry.name).filter((n) =>
      n.endsWith(".seg")
    );
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (strays.length > 0) {
    throw new LogCorruptError(
      `log ${dir} has segment files but no ${MANIFEST_FILE}; run \`cairn verify --repair\` to rebuild it`,
      join(dir, MANIFEST_FILE),
    );
  }
  if (!options.readOnly) await writeManifest(dir, manifest);
  return manifest;
}

/**
 * Refuses a segment whose first event comes before the manifest says it
 * starts or before the previous segment's last; returns its last sequence number.
 */
function checkOrder(path: string, scan: SegmentScan, firstSeq: number, lastSeq: number): number {
  const first = scan.records[0];
  if (first && (first.seq < firstSeq || first.seq <= lastSeq)) {
    throw new LogCorruptError(`log segment ${path} holds events out of order`, path, first.offset);
  }
  return scan.records.at(-1)?.seq ?? lastSeq;
}

/**
 * Refuses an active segment that lost events the log acknowledged (a file cut
 * short or damaged after the fact): a torn write is cut off only when nothing
 * acknowledged is in it, so such a loss is never taken for one.
 */
function checkAcknowledged(
  path: string,
  scan: SegmentScan,
  firstSeq: number,
  manifest: Manifest,
  acknowledged: Acknowledged | undefined,
): void {
  const missing = missingAcknowledged(acknowledged, {
    firstSeq,
    generation: manifest.generation,
    lastSeq: scan.records.at(-1)?.seq ?? 0,
    goodEnd: scan.goodEnd,
  }, manifest.minHead);
  if (!missing) return;
  throw new LogCorruptError(
    `log segment ${path} lost records that were acknowledged: ${missing}. Restore the file ` +
      "from a backup, or run `cairn verify --repair` to keep every readable event and go on " +
      "without the rest",
    path,
    scan.goodEnd,
  );
}

/** Refuses a sealed segment that is missing or not the length it was sealed at. */
async function checkSealedSize(
  path: string,
  bytes: number,
  entry: { firstSeq: number },
  next: { firstSeq: number },
): Promise<void> {
  let size: number;
  try {
    size = (await Deno.stat(path)).size;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw missingSegmentError(path, entry, next);
  }
  if (size !== bytes) {
    throw new LogCorruptError(
      `log segment ${path} is ${size} bytes but was sealed at ${bytes}: ` +
        "run `cairn verify` to find the damage, `cairn verify --repair` to keep every readable event",
      path,
      Math.min(size, bytes),
    );
  }
}

/** The records of the segment file at `path` up to byte `end`, its bytes wiped once read. */
async function scanSegmentFile(path: string, end: number): Promise<SegmentScan> {
  const bytes = await Deno.readFile(path);
  try {
    return scanSegment(bytes.subarray(0, end));
  } finally {
    wipe(bytes);
  }
}

async function readSegmentFile(
  path: string,
  entry: { firstSeq: number },
  next: { firstSeq: number } | undefined,
): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw missingSegmentError(path, entry, next);
  }
}

function missingSegmentError(
  path: string,
  entry: { firstSeq: number },
  next: { firstSeq: number } | undefined,
): LogCorruptError {
  const range = next
    ? `events ${entry.firstSeq} to ${next.firstSeq - 1}`
    : `events from ${entry.firstSeq} on`;
  return new LogCorruptError(
    `log segment ${path} is missing: ${range} are gone; the other segments are intact. ` +
      "Restore the file from a backup, or run `cairn verify --repair` to keep every other event",
    path,
  );
}

function damageError(path: string, damage: SegmentDamage, goodRecords: number): LogCorruptError {
  const after = damage.resumesAt === undefined
    ? "nothing readable follows it"
    : `readable records resume at offset ${damage.resumesAt}`;
  return new LogCorruptError(
    `log segment ${path} is damaged at byte offset ${damage.offset} (${damage.reason}); ` +
      `${goodRecords} records in it are readable and ${after}. ` +
      "Run `cairn verify --repair` to keep every readable event",
    path,
    damage.offset,
  );
}

async function truncate(path: string, length: number): Promise<void> {
  const file = await Deno.open(path, { write: true });
  try {
    await file.truncate(length);
    await file.sync();
  } finally {
    file.close();
  }
}
