import { join } from "node:path";
import { Index, MetricKind, ScalarKind } from "usearch";
import { exists, syncDir, writeAll, writeFileAtomic } from "../../events/durable_fs.ts";
import { isDiskFull } from "../../events/disk_full.ts";
import { fileLines } from "../../events/file_lines.ts";
import { ProjectionDamage } from "../damage.ts";
import { addedLine, parseJournalLine, removedLine } from "./key_journal.ts";
import { checkSavedIndex } from "./usearch_file.ts";

/** A nearest neighbour: the document id and its cosine distance (0 = same direction). */
export interface VectorHit {
  id: string;
  distance: number;
}

/** A vector to store: its document id, the hash of the text it came from, its group if any. */
export interface VectorEntry {
  id: string;
  textHash: string;
  vector: Float32Array;
  group?: string;
}

const encoder = new TextEncoder();
/** Vectors added since the last save of the whole index, at which it is saved again (see `save`). */
const MIN_PENDING = 4096;
const PENDING_SHARE = 0.25;
/**
 * Pending vectors past which closing saves the index whole: each costs every
 * later open an HNSW insertion (about 0.3 ms here), and 1,024 of them about as
 * much as saving a 100k-vector index once.
 */
const CLOSE_PENDING = 1024;

/**
 * One HNSW index (USearch, int8, cosine) of one source in one project, with
 * the map from cairn's string ids to USearch's integer keys kept in a journal
 * beside it (`+ key id textHash group` / `- key`). A group (a file, for code
 * chunks) lets all of a file's vectors be replaced together.
 *
 * Saving the whole index costs time in proportion to its size, so a batch
 * appends only its journal lines and its new vectors (`<name>.pending`: key
 * u64 and the vector, little-endian); the index is saved whole, and the
 * journal rewritten to the live entries, once the pending vectors reach a
 * quarter of it. Opening loads the index and adds the pending vectors back.
 */
export class VectorPartition {
  #index: Index;
  #keyOf = new Map<string, { key: bigint; text: string; group: string }>();
  #idOf = new Map<bigint, string>();
  #groups = new Map<string, Set<string>>();
  #nextKey = 1n;
  #journal: string[] = [];
  /** Vectors added since the last `save`, to append to the pending file. */
  #added: Array<{ key: bigint; vector: Float32Array }> = [];
  /** Vectors in the pending file: added since the index was last saved whole. */
  #pending = 0;
  #synced = false;
  #dirty = false;

  private constructor(
    private readonly dir: string,
    readonly name: string,
    private readonly dims: number,
  ) {
    this.#index = newIndex(dims);
  }

  /** Opens the partition `name` in `dir`, loading its index, journal and pending vectors. */
  static async open(dir: string, name: string, dims: number): Promise<VectorPartition> {
    const partition = new VectorPartition(dir, name, dims);
    const removed = new Set<bigint>();
    if (await exists(partition.#path("keys"))) {
      for await (const line of fileLines(partition.#path("keys"))) {
        if (!line.complete) {
          // A torn last line (a batch never acknowledged) is cut off: appends start on a new line.
          await Deno.truncate(partition.#path("keys"), line.offset);
          break;
        }
        const entry = parseJournalLine(
          line.text,
          `${partition.#path("keys")}, line at byte ${line.offset}`,
        );
        if (entry === undefined) continue;
        const { key } = entry;
        if (entry.op === "+") partition.#remember(entry.id, key, entry.text, entry.group);
        else {
          partition.#forget(key);
          removed.add(key);
        }
        if (key >= partition.#nextKey) partition.#nextKey = key + 1n;
      }
    }
    // Without a saved index yet, the pending vectors hold every vector so far.
    if (await exists(partition.#path("usearch"))) {
      await checkSavedIndex(partition.#path("usearch"), dims);
      try {
        partition.#index.load(partition.#path("usearch"));
      } catch (error) {
        throw new ProjectionDamage(`${partition.#path("usearch")}: ${(error as Error).message}`);
      }
    }
    partition.#pending = await partition.#addPending();
    for (const key of removed) {
      if (!partition.#idOf.has(key) && partition.#index.contains(key)) {
        partition.#index.remove(key);
      }
    }
    // A crash between journal and vector writes leaves keys without vectors: forget them (their
    // batch was not acknowledged, so its events are applied again).
    const known = BigUint64Array.from(partition.#idOf.keys());
    const held = known.length > 0 ? partition.#index.contains(known) as boolean[] : [];
    known.forEach((key, i) => {
      if (!held[i]) partition.#forget(key);
    });
    return partition;
  }

  /** Number of vectors. */
  get size(): number {
    return this.#keyOf.size;
  }

  /** The ids and the hashes of the texts their vectors came from (for digests). */
  entries(): Array<[string, string]> {
    return [...this.#keyOf].map(([id, { text }]) => [id, text]);
  }

  /** True when `id` is indexed from the text with hash `textHash`. */
  holds(id: string, textHash: string): boolean {
    return this.#keyOf.get(id)?.text === textHash;
  }

  /** Adds or replaces the vector of `id`, optionally as a member of `group`. */
  upsert(id: string, textHash: string, vector: Float32Array, group = ""): void {
    this.upsertMany([{ id, textHash, vector, group }]);
  }

  /**
   * Adds or replaces several vectors in one insertion into the index, which
   * spreads it over the cores (an id given twice keeps its last vector).
   */
  upsertMany(entries: readonly VectorEntry[]): void {
    const last = [...new Map(entries.map((entry) => [entry.id, entry])).values()];
    if (last.length === 0) return;
    const keys = new BigUint64Array(last.length);
    const vectors = new Float32Array(last.length * this.dims);
    for (const [i, entry] of last.entries()) {
      this.remove(entry.id);
      keys[i] = this.#nextKey++;
      vectors.set(entry.vector, i * this.dims);
    }
    this.#index.add(keys, vectors, ADD_THREADS);
    for (const [i, { id, textHash, vector, group = "" }] of last.entries()) {
      const key = keys[i]!;
      this.#remember(id, key, textHash, group);
      this.#journal.push(addedLine(key, id, textHash, group));
      this.#added.push({ key, vector });
    }
    this.#dirty = true;
  }

  /** The group `id` is a member of; undefined when it has none or is not held. */
  groupOf(id: string): string | undefined {
    return this.#keyOf.get(id)?.group || undefined;
  }

  /** The ids in `group`. */
  members(group: string): string[] {
    return [...this.#groups.get(group) ?? []];
  }

  /** Removes the vector of `id`, if any. */
  remove(id: string): void {
    const entry = this.#keyOf.get(id);
    if (!entry) return;
    this.#index.remove(entry.key);
    this.#forget(entry.key);
    this.#journal.push(removedLine(entry.key));
    this.#dirty = true;
  }

  /** The `k` nearest vectors to `query`, nearest first. */
  search(query: Float32Array, k: number): VectorHit[] {
    if (this.#keyOf.size === 0) return [];
    const matches = this.#index.search(query, Math.min(k, this.#keyOf.size), 0);
    const hits: VectorHit[] = [];
    matches.keys.forEach((key, i) => {
      const id = this.#idOf.get(key);
      if (id !== undefined) hits.push({ id, distance: matches.distances[i]! });
    });
    // Equal distances (int8 vectors tie often) in id order, however the index was built.
    return hits.sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * Makes what changed since the last call durable: journal lines and new
   * vectors appended and fsynced; the whole index saved (atomically) once the
   * pending vectors reach a quarter of it.
   */
  async save(): Promise<void> {
    if (!this.#dirty) return;
    await Deno.mkdir(this.dir, { recursive: true });
    await appendDurably(
      this.#path("keys"),
      encoder.encode(this.#journal.map((l) => `${l}\n`).join("")),
    );
    this.#journal = [];
    await appendDurably(this.#path("pending"), this.#encode(this.#added));
    // The files may be new: their names must be durable too (once a process is enough).
    if (!this.#synced) await syncDir(this.dir);
    this.#synced = true;
    this.#pending += this.#added.length;
    this.#added = [];
    this.#dirty = false;
    if (this.#pending < Math.max(MIN_PENDING, PENDING_SHARE * this.#keyOf.size)) return;
    await this.#saveWhole();
  }

  /**
   * Saves the whole index when every change is saved and the pending vectors
   * are many enough that adding them back at each open (as HNSW insertions)
   * costs more than saving once: a process that only read a store after a
   * bulk write spares the processes after it.
   */
  async close(): Promise<void> {
    if (this.#dirty || this.#pending < CLOSE_PENDING) return;
    try {
      await this.#saveWhole();
    } catch (error) {
      // Only a saving of time for later opens: the journal and pending vectors hold everything.
      if (!isDiskFull(error)) throw error;
    }
  }

  /** Saves the index whole (atomically); the journal shrinks to the live entries, the pending file empties. */
  async #saveWhole(): Promise<void> {
    const tmp = `${this.#path("usearch")}.tmp`;
    this.#index.save(tmp);
    const written = await Deno.open(tmp, { read: true, write: true });
    try {
      await written.sync();
    } finally {
      written.close();
    }
    await Deno.rename(tmp, this.#path("usearch"));
    await syncDir(this.dir);
    await writeFileAtomic(
      this.#path("keys"),
      [...this.#keyOf].map(([id, { key, text, group }]) => `${addedLine(key, id, text, group)}\n`),
    );
    await Deno.truncate(this.#path("pending"), 0);
    this.#pending = 0;
  }

  /** Adds the pending file's vectors that the loaded index lacks; returns how many it holds. */
  async #addPending(): Promise<number> {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(this.#path("pending"));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return 0;
      throw error;
    }
    const size = 8 + 4 * this.dims;
    // A torn last record (a crash mid-append; its batch was not acknowledged) is cut off, so the
    // next append starts on a record's boundary.
    const count = Math.floor(bytes.length / size);
    if (count * size < bytes.length) await Deno.truncate(this.#path("pending"), count * size);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const keys = new BigUint64Array(count);
    const vectors = new Float32Array(count * this.dims);
    const taken = new Set<bigint>();
    const recorded = BigUint64Array.from(
      { length: count },
      (_, i) => view.getBigUint64(i * size, true),
    );
    const indexed = count > 0 ? this.#index.contains(recorded) as boolean[] : [];
    for (let i = 0; i < count; i++) {
      const key = recorded[i]!;
      if (!this.#idOf.has(key) || indexed[i] || taken.has(key)) continue;
      keys[taken.size] = key;
      for (let d = 0; d < this.dims; d++) {
        vectors[taken.size * this.dims + d] = view.getFloat32(i * size + 8 + 4 * d, true);
      }
      taken.add(key);
    }
    if (taken.size > 0) {
      this.#index.add(
        keys.slice(0, taken.size),
        vectors.slice(0, taken.size * this.dims),
        ADD_THREADS,
      );
    }
    return count;
  }

  #encode(added: ReadonlyArray<{ key: bigint; vector: Float32Array }>): Uint8Array {
    const size = 8 + 4 * this.dims;
    const bytes = new Uint8Array(added.length * size);
    const view = new DataView(bytes.buffer);
    for (const [i, { key, vector }] of added.entries()) {
      view.setBigUint64(i * size, key, true);
      for (let d = 0; d < this.dims; d++) view.setFloat32(i * size + 8 + 4 * d, vector[d]!, true);
    }
    return bytes;
  }

  #remember(id: string, key: bigint, text: string, group: string): void {
    const previous = this.#keyOf.get(id);
    if (previous) this.#forget(previous.key);
    this.#keyOf.set(id, { key, text, group });
    this.#idOf.set(key, id);
    if (group) {
      let members = this.#groups.get(group);
      if (!members) this.#groups.set(group, members = new Set());
      members.add(id);
    }
  }

  #forget(key: bigint): void {
    const id = this.#idOf.get(key);
    if (id === undefined) return;
    this.#idOf.delete(key);
    const entry = this.#keyOf.get(id);
    if (entry?.key !== key) return;
    this.#keyOf.delete(id);
    const members = this.#groups.get(entry.group);
    members?.delete(id);
    if (members?.size === 0) this.#groups.delete(entry.group);
  }

  #path(kind: "keys" | "usearch" | "pending"): string {
    return join(this.dir, `${this.name}.${kind}`);
  }
}

/** Appends `bytes` to the file at `path` (creating it) and fsyncs it. */
async function appendDurably(path: string, bytes: Uint8Array): Promise<void> {
  if (bytes.length === 0) return;
  const file = await Deno.open(path, { create: true, append: true, mode: 0o600 });
  try {
    await writeAll(file, bytes);
    await file.syncData();
  } finally {
    file.close();
  }
}

/**
 * One thread adds vectors to an index: added by several, the same vectors
 * make a different graph each time, and the approximate search finds a
 * slightly different neighbourhood in each process (69 of 1,223 mixed-store
 * questions ranked differently from one run to the next). The model, not
 * the index, is what a batch of vectors waits for.
 */
const ADD_THREADS = 1;

function newIndex(dims: number): Index {
  return new Index({
    dimensions: dims,
    metric: MetricKind.Cos,
    quantization: ScalarKind.I8,
    connectivity: 16,
    expansion_add: 128,
    expansion_search: 64,
    multi: false,
  });
}
