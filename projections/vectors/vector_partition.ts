import { join } from "node:path";
import { Index, MetricKind, ScalarKind } from "usearch";
import { syncDir, writeAll } from "../../events/durable_fs.ts";

/** A nearest neighbour: the document id and its cosine distance (0 = same direction). */
export interface VectorHit {
  id: string;
  distance: number;
}

const encoder = new TextEncoder();

/**
 * One HNSW index (USearch, int8, cosine) of one source in one project, with
 * the map from cairn's string ids to USearch's integer keys kept in an
 * append-only journal beside it (`+ key id textHash group` / `- key`). A group
 * (a file, for code chunks) lets all of a file's vectors be replaced together.
 */
export class VectorPartition {
  #index: Index;
  #keyOf = new Map<string, { key: bigint; text: string; group: string }>();
  #idOf = new Map<bigint, string>();
  #groups = new Map<string, Set<string>>();
  #nextKey = 1n;
  #journal: string[] = [];
  #dirty = false;

  private constructor(
    private readonly dir: string,
    readonly name: string,
    private readonly dims: number,
  ) {
    this.#index = newIndex(dims);
  }

  /** Opens the partition `name` in `dir`, loading its index and journal if they exist. */
  static async open(dir: string, name: string, dims: number): Promise<VectorPartition> {
    const partition = new VectorPartition(dir, name, dims);
    let journal = "";
    try {
      journal = await Deno.readTextFile(partition.#journalPath());
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    for (const line of journal.split("\n")) {
      const [op, keyText, id, text, group = ""] = line.split("\t");
      if (!keyText) continue;
      const key = BigInt(keyText);
      if (op === "+" && id !== undefined && text !== undefined) {
        partition.#remember(id, key, text, group);
      }
      if (op === "-") partition.#forget(key);
      if (key >= partition.#nextKey) partition.#nextKey = key + 1n;
    }
    try {
      partition.#index.load(partition.#indexPath());
    } catch {
      // No saved index yet: every journal entry below is dropped and re-applied events fill it.
    }
    // A crash between journal and index writes leaves keys the index lacks: forget them.
    for (const [key] of partition.#idOf) {
      if (!partition.#index.contains(key)) partition.#forget(key);
    }
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
    this.remove(id);
    const key = this.#nextKey++;
    this.#index.add(key, vector);
    this.#remember(id, key, textHash, group);
    this.#journal.push(`+\t${key}\t${id}\t${textHash}\t${group}`);
    this.#dirty = true;
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
    this.#journal.push(`-\t${entry.key}`);
    this.#dirty = true;
  }

  /** The `k` nearest vectors to `query`. */
  search(query: Float32Array, k: number): VectorHit[] {
    if (this.#keyOf.size === 0) return [];
    const matches = this.#index.search(query, Math.min(k, this.#keyOf.size), 0);
    const hits: VectorHit[] = [];
    matches.keys.forEach((key, i) => {
      const id = this.#idOf.get(key);
      if (id !== undefined) hits.push({ id, distance: matches.distances[i]! });
    });
    return hits;
  }

  /** Writes the journal (fsynced) and the index (atomically) if anything changed. */
  async save(): Promise<void> {
    if (!this.#dirty) return;
    await Deno.mkdir(this.dir, { recursive: true });
    const file = await Deno.open(this.#journalPath(), { create: true, append: true, mode: 0o600 });
    try {
      await writeAll(file, encoder.encode(this.#journal.map((line) => `${line}\n`).join("")));
      await file.syncData();
    } finally {
      file.close();
    }
    this.#journal = [];
    const tmp = `${this.#indexPath()}.tmp`;
    this.#index.save(tmp);
    const written = await Deno.open(tmp, { read: true, write: true });
    try {
      await written.sync();
    } finally {
      written.close();
    }
    await Deno.rename(tmp, this.#indexPath());
    await syncDir(this.dir);
    this.#dirty = false;
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

  #journalPath(): string {
    return join(this.dir, `${this.name}.keys`);
  }

  #indexPath(): string {
    return join(this.dir, `${this.name}.usearch`);
  }
}

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
