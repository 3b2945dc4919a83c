import { join } from "node:path";
import { exists, syncDir, writeAll, writeFileAtomic } from "../events/durable_fs.ts";
import { fileLines } from "../events/file_lines.ts";

/** The kinds of documents the lexical index holds. */
export type TextSource = "memory" | "code" | "turn";

/** One indexed document, as stored: everything needed to index it again. */
export interface TextDoc {
  /** Stable key: `memory:<id>`, `chunk:<project>:<chunk id>`, `turn:<session>:<line>`. */
  key: string;
  source: TextSource;
  /** The id recall reports: memory id, chunk id, `<session>:<line>`. */
  id: string;
  /** Null for a global memory (or a turn outside any project). */
  project: string | null;
  /** The memory's kind, for memories. */
  kind?: string;
  /** `<project>\0<path>` for code chunks, so a file's chunks can be replaced together. */
  file?: string;
  /** The texts indexed, in order (memory: content, tags; chunk: name, path, text; turn: text). */
  fields: string[];
  /** Memories from one conversation or session (`<project>\0<source>`) are read in context. */
  thread?: string;
  /** Position within the thread: the sequence number of the event that stored it. */
  order?: number;
}

/** A change to the index: a document upserted, or a key removed. */
export type TextOp = TextDoc | { key: string; removed: true };

const SNAPSHOT = "snapshot.jsonl";
const JOURNAL = "journal.jsonl";
const encoder = new TextEncoder();

/**
 * The lexical index on disk: a snapshot (one document a line, sorted) and an
 * append-only journal of upserts and removals, one line per batch, fsynced
 * before {@linkcode TextStore.append} resolves. Replaying the journal over the
 * snapshot is idempotent (each op sets or clears one key), so a crash between
 * writing a snapshot and emptying the journal is harmless. The journal is folded
 * into a new snapshot once it outgrows the snapshot, so a write costs one
 * appended line and a few amortised bytes, whatever the index size.
 */
export class TextStore {
  #journalBytes = 0;
  #snapshotBytes = 0;

  private constructor(private readonly dir: string, private journal: Deno.FsFile) {}

  /** Opens (creating) the store in `dir` and returns it with the documents it holds. */
  static async open(dir: string): Promise<{ store: TextStore; docs: Map<string, TextDoc> }> {
    await Deno.mkdir(dir, { recursive: true });
    const docs = new Map<string, TextDoc>();
    const snapshotPath = join(dir, SNAPSHOT);
    let snapshotBytes = 0;
    if (await exists(snapshotPath)) {
      for await (const line of fileLines(snapshotPath)) {
        snapshotBytes = line.next;
        if (line.text === "") continue;
        const doc = JSON.parse(line.text) as TextDoc;
        docs.set(doc.key, doc);
      }
    }
    const journalPath = join(dir, JOURNAL);
    const journalBytes = await replayJournal(journalPath, docs);
    const journal = await Deno.open(journalPath, {
      append: true,
      create: true,
      mode: 0o600,
    });
    await syncDir(dir);
    const store = new TextStore(dir, journal);
    store.#journalBytes = journalBytes;
    store.#snapshotBytes = snapshotBytes;
    return { store, docs };
  }

  /**
   * Appends one batch of ops durably. When the journal has outgrown the
   * snapshot (and 1 MiB), writes `current` as the new snapshot and empties it.
   */
  async append(ops: readonly TextOp[], current: () => Iterable<TextDoc>): Promise<void> {
    if (ops.length === 0) return;
    const bytes = encoder.encode(JSON.stringify(ops) + "\n");
    await writeAll(this.journal, bytes);
    await this.journal.syncData();
    this.#journalBytes += bytes.length;
    if (this.#journalBytes > Math.max(1 << 20, this.#snapshotBytes)) await this.snapshot(current());
  }

  /** Writes every document as the new snapshot, atomically, then empties the journal. */
  async snapshot(docs: Iterable<TextDoc>): Promise<void> {
    const sorted = [...docs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const bytes = await writeFileAtomic(
      join(this.dir, SNAPSHOT),
      sorted.values().map((doc) => JSON.stringify(doc) + "\n"),
    );
    await this.journal.truncate(0);
    await this.journal.sync();
    this.#snapshotBytes = bytes;
    this.#journalBytes = 0;
  }

  /** Deletes the snapshot and empties the journal. */
  async reset(): Promise<void> {
    await Deno.remove(join(this.dir, SNAPSHOT)).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
    await this.journal.truncate(0);
    await this.journal.sync();
    await syncDir(this.dir);
    this.#journalBytes = 0;
    this.#snapshotBytes = 0;
  }

  /** Closes the journal. */
  close(): void {
    this.journal.close();
  }
}

/**
 * Applies the journal's ops to `docs` and returns its length in bytes; cuts a
 * torn last line (a batch never acknowledged).
 */
async function replayJournal(path: string, docs: Map<string, TextDoc>): Promise<number> {
  if (!(await exists(path))) return 0;
  let good = 0;
  let number = 0;
  // A complete line that does not parse is a torn write only when no complete line follows.
  let unreadable: number | undefined;
  for await (const line of fileLines(path)) {
    number++;
    if (!line.complete) break;
    if (unreadable !== undefined) {
      throw new Error(
        `the lexical index journal ${path} is damaged at line ${unreadable}; ` +
          "run `cairn replay --projection text` to rebuild it",
      );
    }
    let ops: TextOp[];
    try {
      ops = JSON.parse(line.text) as TextOp[];
    } catch {
      unreadable = number;
      continue;
    }
    for (const op of ops) {
      if ("removed" in op) docs.delete(op.key);
      else docs.set(op.key, op);
    }
    good = line.next;
  }
  if (good < (await Deno.stat(path)).size) await Deno.truncate(path, good);
  return good;
}
