import { join } from "node:path";
import { sha256HexSync } from "../events/blobs.ts";
import {
  appendWhole,
  exists,
  removeAtomicLeftovers,
  syncDir,
  writeFileAtomic,
} from "../events/durable_fs.ts";
import { fileLines } from "../events/file_lines.ts";

/** The kinds of documents the lexical index holds. */
export type TextSource = "memory" | "code" | "turn" | "entity";

/** One indexed document, as stored: everything needed to index it again. */
export interface TextDoc {
  /**
   * Stable key: `memory:<id>`, `chunk:<project>:<chunk id>`, `turn:<session>:<line>`,
   * `entity:<name>`.
   */
  key: string;
  source: TextSource;
  /** The id recall reports: memory id, chunk id, `<session>:<line>`, entity name. */
  id: string;
  /** Null for a global memory (or a turn outside any project). */
  project: string | null;
  /** The memory's kind, for memories. */
  kind?: string;
  /** `<project>\0<path>` for code chunks, so a file's chunks can be replaced together. */
  file?: string;
  /**
   * The texts indexed, in order, but for `blob`'s (memory: content, tags;
   * chunk: name, path; turn: none; entity: name, type, observations).
   */
  fields: string[];
  /** An entity's relations, from or to it: `[from, type, to]`, indexed after its fields. */
  relations?: ReadonlyArray<readonly [string, string, string]>;
  /**
   * The blob holding the document's last text (a chunk's or a turn's text),
   * indexed after `fields`: kept by reference, as the log keeps it, so that
   * neither the store nor the process holds every chunk's text.
   */
  blob?: string;
  /** Memories from one conversation or session (`<project>\0<source>`) are read in context. */
  thread?: string;
  /** Position within the thread: the sequence number of the event that stored it. */
  order?: number;
}

/** A change to the index: a document upserted, or a key removed. */
export type TextOp = TextDoc | { key: string; removed: true };

const SNAPSHOT = "snapshot.jsonl";
const JOURNAL = "journal.jsonl";
/** A search index image, named by the journal length it reflects: `index-<bytes>.image`. */
const IMAGE = /^index-(\d+)\.image$/;
const encoder = new TextEncoder();

/** The bytes of a search index image, as parts written one after the other. */
export type ImageParts = Iterable<Uint8Array | string>;

/** What {@linkcode TextStore.open} found on disk. */
export interface OpenedTextStore {
  store: TextStore;
  /** The documents as of the store's image when it has one, else as of the whole journal. */
  docs: Map<string, TextDoc>;
  /** The journal's ops after the image (none without one), to be applied over `docs`. */
  tail: TextOp[];
}

/**
 * The lexical index on disk: a snapshot (one document a line, sorted) and an
 * append-only journal of upserts and removals, one line per batch, fsynced
 * before {@linkcode TextStore.append} resolves. Replaying the journal over the
 * snapshot is idempotent (each op sets or clears one key), so a crash between
 * writing a snapshot and emptying the journal is harmless. The journal is folded
 * into a new snapshot once it outgrows the snapshot, so a write costs one
 * appended line and a few amortised bytes, whatever the index size.
 *
 * Beside them it may keep an image of the search indexes built from the
 * documents (a cache: building them tokenizes every document, 45 s at a
 * million chunks), named by the journal length it reflects: opening gives the
 * documents as of the image and the journal's ops after it. A new snapshot
 * deletes the image first, so an image never outlives the journal it counts.
 */
export class TextStore {
  #journalBytes = 0;
  #snapshotBytes = 0;
  /** The journal length the image on disk reflects; undefined without one. */
  #imageAt: number | undefined;

  private constructor(private readonly dir: string, private journal: Deno.FsFile) {}

  /** Opens (creating) the store in `dir`: the documents it holds, and its image if any. */
  static async open(dir: string): Promise<OpenedTextStore> {
    await Deno.mkdir(dir, { recursive: true });
    await removeAtomicLeftovers(dir);
    const docs = new Map<string, TextDoc>();
    const snapshotPath = join(dir, SNAPSHOT);
    let snapshotBytes = 0;
    let oldSnapshot = false;
    if (await exists(snapshotPath)) {
      for await (const line of fileLines(snapshotPath)) {
        snapshotBytes = line.next;
        if (line.text === "") continue;
        const stored = JSON.parse(line.text) as TextDoc;
        const doc = current(stored);
        oldSnapshot ||= doc !== stored;
        docs.set(doc.key, doc);
      }
    }
    const images = await imagesIn(dir);
    const newest = images.at(-1);
    const journalPath = join(dir, JOURNAL);
    const replayed = await replayJournal(journalPath, docs, newest);
    const journal = await Deno.open(journalPath, {
      append: true,
      create: true,
      mode: 0o600,
    });
    const store = new TextStore(dir, journal);
    store.#journalBytes = replayed.bytes;
    store.#snapshotBytes = snapshotBytes;
    const kept = replayed.tail ? newest : undefined;
    for (const at of images) if (at !== kept) await Deno.remove(join(dir, imageName(at)));
    await syncDir(dir);
    store.#imageAt = kept;
    try {
      await store.#convert(docs.values(), {
        snapshot: oldSnapshot,
        journal: replayed.oldForm,
        atEnd: !replayed.tail?.length,
      });
    } catch (error) {
      store.close();
      throw error;
    }
    return { store, docs, tail: replayed.tail ?? [] };
  }

  /** Whether the store holds an image (of the documents as they were at some point of the journal). */
  get hasImage(): boolean {
    return this.#imageAt !== undefined;
  }

  /** The image's bytes; undefined without one, or when it cannot be read. */
  readImage(): Uint8Array | undefined {
    if (this.#imageAt === undefined) return undefined;
    try {
      return Deno.readFileSync(join(this.dir, imageName(this.#imageAt)));
    } catch {
      return undefined;
    }
  }

  /**
   * Whether an image written now would save the next open real work: there
   * is none, or the journal has grown past it by an eighth of the snapshot
   * (and 1 MiB), ops that the next open would otherwise index one by one.
   */
  get imageBehind(): boolean {
    return this.#imageAt === undefined ||
      this.#journalBytes - this.#imageAt > Math.max(1 << 20, this.#snapshotBytes / 8);
  }

  /** Writes the image of the documents as they are now (every op appended), replacing the old one. */
  async writeImage(parts: ImageParts): Promise<void> {
    const at = this.#journalBytes;
    await writeFileAtomic(join(this.dir, imageName(at)), parts);
    if (this.#imageAt !== undefined && this.#imageAt !== at) await this.removeImage();
    this.#imageAt = at;
  }

  /**
   * Appends one batch of ops durably. When the journal has outgrown the
   * snapshot (and 1 MiB), writes `current` as the new snapshot and empties it.
   */
  async append(
    ops: readonly TextOp[],
    current: () => Iterable<TextDoc>,
    image?: () => ImageParts | undefined,
  ): Promise<void> {
    if (ops.length === 0) return;
    const bytes = encoder.encode(JSON.stringify(ops) + "\n");
    await appendWhole(this.journal, this.#journalBytes, bytes);
    this.#journalBytes += bytes.length;
    if (this.#journalBytes > Math.max(1 << 20, this.#snapshotBytes)) {
      await this.snapshot(current(), image);
    }
  }

  /**
   * Writes every document as the new snapshot, atomically, then empties the
   * journal; the old image goes first, and `image` (when it gives one) is
   * written as the new snapshot's.
   */
  async snapshot(docs: Iterable<TextDoc>, image?: () => ImageParts | undefined): Promise<void> {
    await this.removeImage();
    await this.#writeSnapshot(docs);
    await this.#emptyJournal();
    const parts = image?.();
    if (parts) await this.writeImage(parts);
  }

  /**
   * Writes in the current form what was read in the old one (see `current`),
   * `docs` being the documents as of the image, or of the journal's end
   * (`atEnd`). At the end, they become the snapshot, the journal is emptied
   * and the image kept: it indexes the same documents, now at journal length
   * 0 (renamed before the journal is emptied, so that a crash between leaves
   * it counting ops that only repeat the snapshot's documents: each sets one
   * key, indexing them again is harmless). With ops after the image, only an
   * old snapshot is written again, as of the image: replaying the whole journal
   * over it still ends where the journal ends.
   */
  async #convert(
    docs: Iterable<TextDoc>,
    old: { snapshot: boolean; journal: boolean; atEnd: boolean },
  ): Promise<void> {
    if (!old.atEnd) {
      if (old.snapshot) await this.#writeSnapshot(docs);
      return;
    }
    if (!old.snapshot && !old.journal) return;
    await this.#writeSnapshot(docs);
    if (this.#imageAt !== undefined && this.#imageAt !== 0) {
      await Deno.rename(join(this.dir, imageName(this.#imageAt)), join(this.dir, imageName(0)));
      await syncDir(this.dir);
      this.#imageAt = 0;
    }
    await this.#emptyJournal();
  }

  async #writeSnapshot(docs: Iterable<TextDoc>): Promise<void> {
    const sorted = [...docs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.#snapshotBytes = await writeFileAtomic(
      join(this.dir, SNAPSHOT),
      sorted.values().map((doc) => JSON.stringify(doc) + "\n"),
    );
  }

  async #emptyJournal(): Promise<void> {
    await this.journal.truncate(0);
    await this.journal.sync();
    this.#journalBytes = 0;
  }

  /** Deletes the snapshot and the image, and empties the journal. */
  async reset(): Promise<void> {
    await this.removeImage();
    await Deno.remove(join(this.dir, SNAPSHOT)).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
    await this.#emptyJournal();
    await syncDir(this.dir);
    this.#snapshotBytes = 0;
  }

  /** Deletes the image, durably. */
  async removeImage(): Promise<void> {
    if (this.#imageAt === undefined) return;
    await Deno.remove(join(this.dir, imageName(this.#imageAt)));
    await syncDir(this.dir);
    this.#imageAt = undefined;
  }

  /** Closes the journal. */
  close(): void {
    this.journal.close();
  }
}

/** The journal lengths of the images in `dir`, oldest first. */
async function imagesIn(dir: string): Promise<number[]> {
  const found: number[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const at = entry.name.match(IMAGE)?.[1];
    if (at !== undefined) found.push(Number(at));
  }
  return found.sort((a, b) => a - b);
}

function imageName(at: number): string {
  return `index-${at}.image`;
}

/**
 * Applies the journal's ops to `docs` and returns its length in bytes; cuts a
 * torn last line (a batch never acknowledged). With `imageAt`, the ops after
 * that length are returned as `tail` instead of applied; `tail` is undefined
 * (and every op applied) when no line of the journal ends there.
 */
async function replayJournal(
  path: string,
  docs: Map<string, TextDoc>,
  imageAt?: number,
): Promise<{ bytes: number; tail?: TextOp[]; oldForm: boolean }> {
  const tail: TextOp[] = [];
  let imageFound = imageAt === 0;
  let oldForm = false;
  if (!(await exists(path))) return { bytes: 0, oldForm, ...(imageFound ? { tail } : {}) };
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
    ops = ops.map((op) => {
      if ("removed" in op) return op;
      const doc = current(op);
      oldForm ||= doc !== op;
      return doc;
    });
    if (imageFound) { for (const op of ops) tail.push(op); }
    else applyOps(docs, ops);
    good = line.next;
    if (good === imageAt) imageFound = true;
  }
  if (good < (await Deno.stat(path)).size) await Deno.truncate(path, good);
  return { bytes: good, oldForm, ...(imageFound ? { tail } : {}) };
}

function applyOps(docs: Map<string, TextDoc>, ops: readonly TextOp[]): void {
  for (const op of ops) {
    if ("removed" in op) docs.delete(op.key);
    else docs.set(op.key, op);
  }
}

/**
 * `doc` in the current form (itself when it is): a chunk or turn stored before
 * texts were kept by reference (its text inline, as its last field) refers to
 * the text's blob, which the log's event wrote under the same hash.
 */
function current(doc: TextDoc): TextDoc {
  if ((doc.source !== "code" && doc.source !== "turn") || doc.blob !== undefined) return doc;
  return { ...doc, fields: doc.fields.slice(0, -1), blob: sha256HexSync(doc.fields.at(-1) ?? "") };
}
