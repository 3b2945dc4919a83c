/**
 * A persistent embedding cache keyed by (model id, sha256(text)), so replay,
 * re-indexing and unchanged chunks never pay for the same embedding twice.
 *
 * One append-only file per model, `vectors.bin`, in a store
 * (`<store>/cache/embeddings/<model-id>/`) and in the user's shared cache
 * (see `machine_cache.ts`); each record, little-endian: magic u32 | dims u32 |
 * crc32 u32 | sha256 (32 bytes) | dims × f32. The checksum covers the hash and
 * the vector. Several processes may append to one file at once, so nothing is
 * ever cut from it: a torn record (a crash mid-append) is skipped by the scan,
 * which finds the next record by its magic.
 * @module
 */
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { sha256HexSync } from "../../events/blobs.ts";
import { writeAll } from "../../events/durable_fs.ts";
import type { Embedder, Truncation } from "../../text/embedder.ts";
import { sharedVectorsOf } from "./shared_vectors.ts";

const MAGIC = 0x45425645; // "EVBE"
/** Queries whose vectors a {@linkcode CachedEmbedder} keeps in memory. */
const RECENT_QUERIES = 64;
const HEADER_BYTES = 44;
/** Widest vector a record may claim; a wider claim marks a damaged record. */
const MAX_DIMS = 65536;
/** How much of the file one read of a scan takes. */
const SCAN_BYTES = 8 * 1024 * 1024;
/** Vectors this close together in the file are read in one go. */
const RUN_GAP_BYTES = 64 * 1024;

/** Counters of a {@linkcode CachedEmbedder}. */
export interface CacheStats {
  /** Document texts answered from a cache. */
  hits: number;
  /** Document texts no cache held. */
  misses: number;
  /** Of the hits, texts found in the user's shared cache, not the store's. */
  machineHits: number;
  /** Bytes of torn or damaged records the scans skipped. */
  damagedBytes: number;
}

/** The cache directory of one model in a store. */
export function embeddingCacheDir(storeDir: string, modelId: string): string {
  return join(storeDir, "cache", "embeddings", modelFolder(modelId));
}

/** The cache directory of one model in the user's shared cache folder `root`. */
export function machineEmbeddingCacheDir(root: string, modelId: string): string {
  return join(root, "embeddings", modelFolder(modelId));
}

function modelFolder(modelId: string): string {
  return modelId.replace(/[^A-Za-z0-9._-]/g, "_");
}

/**
 * An on-disk map from text hash to vector for one model. Nothing is read at
 * open: the first lookup or write scans the file for where each record lies,
 * and every later one scans only what was appended since (by this or another
 * process); records are read from disk when asked for, so a process that only
 * embeds queries never reads the cache, and one that indexes holds an offset
 * per text, not every vector. A record read back is checked (its hash and
 * checksum) before it is used, so a damaged file costs a cache miss, never a
 * wrong vector; appends always go to the file's end.
 */
export class EmbeddingCache {
  /** Where each text's record starts. */
  readonly #offsets = new Map<string, number>();
  /** How far the scans have indexed the file. */
  #scannedTo = 0;
  #damagedBytes = 0;
  /** File operations, one at a time: a read is a seek and a read on the shared cursor. */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly file: Deno.FsFile,
    /** Width of the vectors stored. */
    readonly dims: number,
  ) {}

  /** Opens (creating) the cache in `dir`; records of another width are ignored. */
  static async open(dir: string, dims: number): Promise<EmbeddingCache> {
    // The user's alone: the folders it creates and the file are not readable by others.
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const file = await Deno.open(join(dir, "vectors.bin"), {
      read: true,
      append: true,
      create: true,
      mode: 0o600,
    });
    return new EmbeddingCache(file, dims);
  }

  /** Bytes of torn or damaged records the scans skipped, 0 if none. */
  get damagedBytes(): number {
    return this.#damagedBytes;
  }

  /** The vectors of `keys`, in order; `undefined` where a key is not cached. */
  async getMany(keys: readonly string[]): Promise<(Float32Array | undefined)[]> {
    await this.#scan();
    const found = keys.flatMap((key, i) => {
      const offset = this.#offsets.get(key);
      return offset === undefined ? [] : [{ i, key, offset }];
    }).sort((a, b) => a.offset - b.offset);
    const out: (Float32Array | undefined)[] = keys.map(() => undefined);
    const recordBytes = HEADER_BYTES + this.dims * 4;
    await this.#exclusive(async () => {
      for (let first = 0; first < found.length;) {
        let last = first;
        while (
          last + 1 < found.length &&
          found[last + 1]!.offset - found[last]!.offset <= RUN_GAP_BYTES &&
          found[last + 1]!.offset - found[first]!.offset < SCAN_BYTES
        ) last++;
        const start = found[first]!.offset;
        const bytes = await this.#readAt(start, found[last]!.offset + recordBytes - start);
        for (const { i, key, offset } of found.slice(first, last + 1)) {
          const vector = this.#vectorAt(bytes, offset - start, key);
          if (vector) out[i] = vector;
          else this.#offsets.delete(key);
        }
        first = last + 1;
      }
    });
    return out;
  }

  /** Appends new entries durably (one write, one fsync); keys already held are skipped. */
  async putMany(entries: readonly (readonly [string, Float32Array])[]): Promise<void> {
    await this.#scan();
    await this.#exclusive(async () => {
      const fresh = new Map(entries.filter(([key]) => !this.#offsets.has(key)));
      if (fresh.size === 0) return;
      const recordBytes = HEADER_BYTES + this.dims * 4;
      const out = new Uint8Array(fresh.size * recordBytes);
      [...fresh].forEach(([key, vector], i) => {
        if (vector.length !== this.dims) {
          throw new RangeError(`vector of ${vector.length} dims in a cache of ${this.dims}`);
        }
        encodeRecord(out.subarray(i * recordBytes, (i + 1) * recordBytes), key, vector);
      });
      await writeAll(this.file, out);
      await this.file.syncData();
      const start = await this.file.seek(0, Deno.SeekMode.Current) - out.length;
      [...fresh.keys()].forEach((key, i) => this.#offsets.set(key, start + i * recordBytes));
      // Nothing appended by others since the last scan: the next one need not read these back.
      if (start === this.#scannedTo) this.#scannedTo += out.length;
    });
  }

  /** Closes the file once the operations under way are done. */
  async close(): Promise<void> {
    await this.#queue.catch(() => {});
    this.file.close();
  }

  /** The vector of the record of `key` at `at` in `bytes`, if that record is whole and checks out. */
  #vectorAt(bytes: Uint8Array, at: number, key: string): Float32Array | undefined {
    const end = at + HEADER_BYTES + this.dims * 4;
    if (end > bytes.length) return undefined;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const intact = view.getUint32(at + 4, true) === this.dims && checksOut(bytes, at, end) &&
      keyAt(bytes, at) === key;
    return intact ? new Float32Array(bytes.slice(at + HEADER_BYTES, end).buffer) : undefined;
  }

  /** Indexes the records appended since the last scan, up to an incomplete last one. */
  #scan(): Promise<void> {
    return this.#exclusive(async () => {
      const size = (await this.file.stat()).size;
      while (this.#scannedTo < size) {
        const bytes = await this.#readAt(
          this.#scannedTo,
          Math.min(SCAN_BYTES, size - this.#scannedTo),
        );
        const used = this.#indexRecords(bytes, this.#scannedTo, size);
        // Nothing used: an incomplete last record, perhaps still being written.
        if (used === 0) break;
        this.#scannedTo += used;
      }
    });
  }

  /**
   * Notes where the whole records at the start of `bytes` lie (`bytes` starts
   * at file offset `base` of a file of `size` bytes) and returns how many
   * bytes it is done with; a damaged record is skipped up to the next magic.
   */
  #indexRecords(bytes: Uint8Array, base: number, size: number): number {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let used = 0;
    while (used + HEADER_BYTES <= bytes.length) {
      const dims = view.getUint32(used + 4, true);
      const end = used + HEADER_BYTES + dims * 4;
      const plausible = view.getUint32(used, true) === MAGIC && dims > 0 && dims <= MAX_DIMS;
      if (plausible && base + end > size) break;
      if (plausible && end > bytes.length) break;
      if (plausible && checksOut(bytes, used, end)) {
        if (dims === this.dims) this.#offsets.set(keyAt(bytes, used), base + used);
        used = end;
        continue;
      }
      const next = nextMagic(bytes, used + 1);
      this.#damagedBytes += next - used;
      used = next;
    }
    return used;
  }

  /** `length` bytes from `position` (fewer at the end of the file). */
  async #readAt(position: number, length: number): Promise<Uint8Array<ArrayBuffer>> {
    await this.file.seek(position, Deno.SeekMode.Start);
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const read = await this.file.read(out.subarray(filled));
      if (read === null) break;
      filled += read;
    }
    return out.subarray(0, filled);
  }

  #exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const done = this.#queue.catch(() => {}).then(operation);
    this.#queue = done;
    return done;
  }
}

/**
 * Where the next record might start in `bytes` from `from` on: the next magic,
 * or the last 3 bytes (a magic may straddle the end of a read).
 */
function nextMagic(bytes: Uint8Array, from: number): number {
  const last = Math.max(from, bytes.length - 3);
  for (let at = from; at < bytes.length - 3; at++) {
    if (
      bytes[at] === 0x45 && bytes[at + 1] === 0x56 && bytes[at + 2] === 0x42 &&
      bytes[at + 3] === 0x45
    ) return at;
  }
  return last;
}

/** Whether the record spanning `at..end` of `bytes` has the magic and its checksum matches. */
function checksOut(bytes: Uint8Array, at: number, end: number): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return view.getUint32(at, true) === MAGIC &&
    (crc32(bytes.subarray(at + 12, end)) >>> 0) === view.getUint32(at + 8, true);
}

/** The text hash of the record at `at`, hex. */
function keyAt(bytes: Uint8Array, at: number): string {
  return Array.from(bytes.subarray(at + 12, at + 44), hex).join("");
}

function hex(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}

function encodeRecord(out: Uint8Array, key: string, vector: Float32Array): void {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, vector.length, true);
  for (let i = 0; i < 32; i++) out[12 + i] = parseInt(key.slice(i * 2, i * 2 + 2), 16);
  out.set(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength), HEADER_BYTES);
  view.setUint32(8, crc32(out.subarray(12)) >>> 0, true);
}

/**
 * An {@linkcode Embedder} that answers documents from the store's
 * {@linkcode EmbeddingCache}, then the user's shared one, then the team's
 * shared vectors, and sends only the rest to the model it wraps. What a later
 * tier or the model gives is written to the earlier ones, so the store's own
 * cache always holds its vectors. Queries are not cached on disk.
 */
export class CachedEmbedder implements Embedder {
  readonly #stats = { hits: 0, misses: 0, machineHits: 0 };
  #shared = 0;

  /** Recent queries' vectors, least recently used first. */
  readonly #queries = new Map<string, Float32Array>();

  private constructor(
    private readonly inner: Embedder,
    private readonly cache: EmbeddingCache,
    private readonly machine: EmbeddingCache | undefined,
    /** The store's folder, whose shared vectors (see `shared_vectors.ts`) are asked on a miss. */
    private readonly storeDir?: string,
  ) {}

  /**
   * Wraps `inner` with the cache of its model in the store at `storeDir`, and
   * in the user's shared cache folder `machineDir` when given.
   */
  static async open(
    inner: Embedder,
    storeDir: string,
    machineDir?: string,
  ): Promise<CachedEmbedder> {
    const cache = await EmbeddingCache.open(embeddingCacheDir(storeDir, inner.id), inner.dims);
    const machine = machineDir === undefined
      ? undefined
      : await EmbeddingCache.open(machineEmbeddingCacheDir(machineDir, inner.id), inner.dims);
    return new CachedEmbedder(inner, cache, machine, storeDir);
  }

  /** The wrapped model's id. */
  get id(): string {
    return this.inner.id;
  }

  /** The wrapped model's width. */
  get dims(): number {
    return this.inner.dims;
  }

  /** Of the misses, the texts whose vectors came from the team's shared vectors, not the model. */
  get sharedHits(): number {
    return this.#shared;
  }

  /** Hits (from either cache), misses and the damaged bytes skipped. */
  get stats(): CacheStats {
    const damagedBytes = this.cache.damagedBytes + (this.machine?.damagedBytes ?? 0);
    return { ...this.#stats, damagedBytes };
  }

  /** Embeds documents, computing (once each) only the texts no cache holds. */
  async embedDocuments(texts: readonly string[], urgent?: boolean): Promise<Float32Array[]> {
    const keys = texts.map((text) => sha256HexSync(text));
    const vectors = await this.cache.getMany(keys);
    const missing = new Map<string, string>();
    keys.forEach((key, i) => {
      if (!vectors[i]) missing.set(key, texts[i]!);
    });
    const fromMachine = await this.#fromMachine(missing);
    const computed = await this.#computed(missing, urgent);
    const found = new Map([...fromMachine, ...computed]);
    if (found.size > 0) {
      await this.machine?.putMany([...computed]);
      await this.cache.putMany([...found]);
    }
    keys.forEach((key, i) => {
      const inMachine = !vectors[i] && fromMachine.has(key);
      if (vectors[i] || inMachine) this.#stats.hits++;
      else this.#stats.misses++;
      if (inMachine) this.#stats.machineHits++;
    });
    return keys.map((key, i) => vectors[i] ?? found.get(key)!.slice());
  }

  /** The vectors of `missing` the user's shared cache holds, taken out of `missing`. */
  async #fromMachine(missing: Map<string, string>): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    if (!this.machine || missing.size === 0) return out;
    const keys = [...missing.keys()];
    (await this.machine.getMany(keys)).forEach((vector, i) => {
      if (!vector) return;
      out.set(keys[i]!, vector);
      missing.delete(keys[i]!);
    });
    return out;
  }

  /** The vectors of `missing`: the team's where it has them, else the model's. */
  async #computed(
    missing: ReadonlyMap<string, string>,
    urgent?: boolean,
  ): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    if (missing.size === 0) return out;
    const keys = [...missing.keys()];
    const shared = this.storeDir ? sharedVectorsOf(this.storeDir) : undefined;
    const found = await shared?.getMany(this.id, keys) ?? [];
    const rest = keys.filter((key, i) => {
      const vector = found[i];
      if (vector?.length !== this.dims) return true;
      out.set(key, vector);
      this.#shared++;
      return false;
    });
    if (rest.length === 0) return out;
    const fresh = await this.inner.embedDocuments(rest.map((key) => missing.get(key)!), urgent);
    const entries = rest.map((key, i) => [key, fresh[i]!] as const);
    for (const [key, vector] of entries) out.set(key, vector);
    await shared?.putMany(this.id, entries);
    return out;
  }

  /**
   * Embeds a query with the wrapped model, remembering the last few in memory
   * (an agent often asks the same thing twice: `recall`, then `search_code`).
   */
  async embedQuery(text: string): Promise<Float32Array> {
    const known = this.#queries.get(text);
    if (known) {
      this.#queries.delete(text);
      this.#queries.set(text, known);
      return known.slice();
    }
    const vector = await this.inner.embedQuery(text);
    this.#queries.set(text, vector.slice());
    if (this.#queries.size > RECENT_QUERIES) {
      this.#queries.delete(this.#queries.keys().next().value!);
    }
    return vector;
  }

  /** What the wrapped model cut (cache hits are not embedded, so not counted). */
  truncation(): Truncation | undefined {
    return this.inner.truncation?.();
  }

  /** The wrapped model's limit when the query `text` is longer than it. */
  queryCutAt(text: string): number | undefined {
    return this.inner.queryCutAt?.(text);
  }

  /** Closes the cache file and the wrapped model. */
  async close(): Promise<void> {
    await this.cache.close();
    await this.inner.close();
  }
}
