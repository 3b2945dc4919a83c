/**
 * A small projection's state on disk: keyed JSON values, as a snapshot and an
 * append-only journal of sets and deletes.
 * @module
 */
import { join } from "node:path";
import {
  appendWhole,
  exists,
  removeAtomicLeftovers,
  syncDir,
  writeFileAtomic,
} from "../events/durable_fs.ts";
import { fileLines } from "../events/file_lines.ts";
import { ProjectionDamage } from "./damage.ts";

/** A change to one key: `[key, value]` sets it, `[key]` deletes it. */
export type KeyedOp<V> = readonly [key: string, value: V] | readonly [key: string];

/** What {@linkcode KeyedJournal.open} found on disk. */
export interface OpenedJournal<V> {
  journal: KeyedJournal<V>;
  /** The values, in the order their keys were first set (a key deleted and set again goes last). */
  entries: Map<string, V>;
  /** The last event the values reflect (0 when empty). */
  seq: number;
}

const SNAPSHOT = "snapshot.jsonl";
const JOURNAL = "journal.jsonl";
const encoder = new TextEncoder();

/**
 * Keyed values on disk: a snapshot (a header line with the last event it
 * reflects, then one `[key, value]` a line, in key order as set) and a
 * journal, one line per write holding the write's last event and its ops,
 * fsynced before {@linkcode KeyedJournal.write} resolves. A journal line the
 * snapshot already reflects (a crash between writing a snapshot and emptying
 * the journal) is skipped on open, so nothing is applied twice and the keys
 * keep their order. The journal is folded into a new snapshot once it
 * outgrows the snapshot (and 1 MiB), so a write costs one appended line and a
 * few amortised bytes.
 */
export class KeyedJournal<V> {
  #journalBytes = 0;
  #snapshotBytes = 0;
  #written = 0;
  /** Ops of writes that failed (a full disk): written with the next one, in order. */
  #unwritten: KeyedOp<V>[] = [];

  private constructor(private readonly dir: string, private readonly journal: Deno.FsFile) {}

  /** Opens (creating) the journal in `dir`: the values it holds and the last event they reflect. */
  static async open<V>(dir: string): Promise<OpenedJournal<V>> {
    await Deno.mkdir(dir, { recursive: true });
    await removeAtomicLeftovers(dir);
    const entries = new Map<string, V>();
    const snapshot = await readSnapshot(join(dir, SNAPSHOT), entries);
    const replayed = await replayJournal(join(dir, JOURNAL), entries, snapshot.seq);
    const file = await Deno.open(join(dir, JOURNAL), { append: true, create: true, mode: 0o600 });
    const journal = new KeyedJournal<V>(dir, file);
    journal.#snapshotBytes = snapshot.bytes;
    journal.#journalBytes = replayed.bytes;
    journal.#written = Math.max(snapshot.seq, replayed.seq);
    return { journal, entries, seq: journal.#written };
  }

  /**
   * Appends `ops`, which bring the values to event `seq`, durably (with those
   * of earlier writes that failed). When the journal has outgrown the
   * snapshot, writes `current` (the values now, every op applied) as the new
   * snapshot and empties the journal.
   */
  async write(
    seq: number,
    ops: readonly KeyedOp<V>[],
    current: () => Iterable<readonly [string, V]>,
  ): Promise<void> {
    this.#unwritten.push(...ops);
    if (this.#unwritten.length === 0) return;
    const bytes = encoder.encode(JSON.stringify({ seq, ops: this.#unwritten }) + "\n");
    await appendWhole(this.journal, this.#journalBytes, bytes);
    this.#unwritten = [];
    this.#journalBytes += bytes.length;
    this.#written = seq;
    if (this.#journalBytes > Math.max(1 << 20, this.#snapshotBytes)) {
      await this.snapshot(seq, current());
    }
  }

  /**
   * Writes `entries` (the values as of event `seq`, every op applied) as the
   * new snapshot, atomically, then empties the journal: no earlier value stays
   * on disk.
   */
  async snapshot(seq: number, entries: Iterable<readonly [string, V]>): Promise<void> {
    this.#snapshotBytes = await writeFileAtomic(
      join(this.dir, SNAPSHOT),
      snapshotLines(seq, entries),
    );
    this.#written = seq;
    this.#unwritten = [];
    await this.#emptyJournal();
  }

  /** Deletes the snapshot and empties the journal. */
  async reset(): Promise<void> {
    this.#unwritten = [];
    await Deno.remove(join(this.dir, SNAPSHOT)).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
    await this.#emptyJournal();
    await syncDir(this.dir);
    this.#snapshotBytes = 0;
    this.#written = 0;
  }

  /** The last event the files hold values for (a write that changed nothing writes nothing). */
  get written(): number {
    return this.#written;
  }

  /** Closes the journal. */
  close(): void {
    this.journal.close();
  }

  async #emptyJournal(): Promise<void> {
    await this.journal.truncate(0);
    await this.journal.sync();
    this.#journalBytes = 0;
  }
}

function* snapshotLines<V>(seq: number, entries: Iterable<readonly [string, V]>) {
  yield JSON.stringify({ seq }) + "\n";
  for (const entry of entries) yield JSON.stringify(entry) + "\n";
}

async function readSnapshot<V>(
  path: string,
  entries: Map<string, V>,
): Promise<{ seq: number; bytes: number }> {
  if (!(await exists(path))) return { seq: 0, bytes: 0 };
  let seq: number | undefined;
  let bytes = 0;
  // The snapshot is written whole and renamed into place: any line that does not parse is damage.
  for await (const line of fileLines(path)) {
    bytes = line.next;
    const parsed = parseLine(line.text, line.complete);
    if (seq === undefined) {
      seq = (parsed as { seq?: unknown } | undefined)?.seq as number;
      if (!Number.isSafeInteger(seq)) throw new ProjectionDamage(`${path} has no header`);
      continue;
    }
    if (!Array.isArray(parsed) || typeof parsed[0] !== "string" || parsed.length !== 2) {
      throw new ProjectionDamage(`${path} is damaged near byte ${line.offset}`);
    }
    entries.set(parsed[0], parsed[1] as V);
  }
  if (seq === undefined) throw new ProjectionDamage(`${path} is empty`);
  return { seq, bytes };
}

/**
 * Applies the journal's lines past `after` (the snapshot's event) to
 * `entries`; cuts a torn last line (a write never acknowledged). A line that
 * does not parse with complete lines after it is damage.
 */
async function replayJournal<V>(
  path: string,
  entries: Map<string, V>,
  after: number,
): Promise<{ seq: number; bytes: number }> {
  if (!(await exists(path))) return { seq: 0, bytes: 0 };
  let good = 0;
  let seq = 0;
  let unreadable: number | undefined;
  for await (const line of fileLines(path)) {
    if (!line.complete) break;
    if (unreadable !== undefined) {
      throw new ProjectionDamage(`${path} is damaged at byte ${unreadable}`);
    }
    const parsed = parseLine(line.text, true) as { seq?: unknown; ops?: unknown } | undefined;
    if (!parsed || !Number.isSafeInteger(parsed.seq) || !Array.isArray(parsed.ops)) {
      unreadable = line.offset;
      continue;
    }
    good = line.next;
    seq = parsed.seq as number;
    if (seq <= after) continue;
    for (const op of parsed.ops as KeyedOp<V>[]) {
      if (op.length === 2) entries.set(op[0], op[1]);
      else entries.delete(op[0]);
    }
  }
  if (good < (await Deno.stat(path)).size) await Deno.truncate(path, good);
  return { seq, bytes: good };
}

function parseLine(text: string, complete: boolean): unknown {
  if (!complete) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
