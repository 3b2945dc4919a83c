/**
 * A persistent embedding cache keyed by (model id, sha256(text)), so replay,
 * re-indexing and unchanged chunks never pay for the same embedding twice.
 *
 * One append-only file per model, `<store>/cache/embeddings/<model-id>/vectors.bin`;
 * each record, little-endian: magic u32 | dims u32 | crc32 u32 | sha256 (32
 * bytes) | dims × f32. The checksum covers the hash and the vector, so a torn
 * last record (a crash mid-append) fails it and is cut off by the first scan.
 * @module
 */
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { sha256HexSync } from "../../events/blobs.ts";
import { concatBytes } from "../../events/bytes.ts";
import { writeAll } from "../../events/durable_fs.ts";
import type { Embedder, Truncation } from "../../text/embedder.ts";
import { sharedVectorsOf } from "./shared_vectors.ts";

const MAGIC = 0x45425645; // "EVBE"
/** Queries whose vectors a {@linkcode CachedEmbedder} keeps in memory. */
const RECENT_QUERIES = 64;
const HEADER_BYTES = 44;
/** How much of the file one read of the first scan takes. */
const SCAN_BYTES = 8 * 1024 * 1024;
/** Vectors this close together in the file are read in one go. */
const RUN_GAP_BYTES = 64 * 1024;

/** Counters of a {@linkcode CachedEmbedder}. */
export interface CacheStats {
  /** Document texts answered from the cache. */
  hits: number;
  /** Document texts that had to be embedded. */
  misses: number;
  /** Bytes cut from the end of the file by its first scan (a torn last record). */
  cutBytes: number;
}

/** The cache directory of one model in a store. */
export function embeddingCacheDir(storeDir: string, modelId: string): string {
  return join(storeDir, "cache", "embeddings", modelId.replace(/[^A-Za-z0-9._-]/g, "_"));
}

/**
 * An on-disk map from text hash to vector for one model. Nothing is read at
 * open: the first lookup or write scans the file once for where each record
 * lies (and cuts a torn tail), and records are read from disk when asked for,
 * so a process that only embeds queries never reads the cache, and one that
 * indexes holds an offset per text, not every vector. A record read back is
 * checked (its hash and checksum) before it is used, so another instance
 * appending to or cutting the same file can cost a cache miss, never a wrong
 * vector; appends always go to the file's end.
 */
export class EmbeddingCache {
  /** Where each text's record starts. */
  readonly #offsets = new Map<string, number>();
  #cutBytes = 0;
  #scanned?: Promise<void>;
  /** File operations, one at a time: a read is a seek and a read on the shared cursor. */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly file: Deno.FsFile,
    /** Width of the vectors stored. */
    readonly dims: number,
  ) {}

  /** Opens (creating) the cache in `dir`; records of another width are ignored. */
  static async open(dir: string, dims: number): Promise<EmbeddingCache> {
    await Deno.mkdir(dir, { recursive: true });
    const file = await Deno.open(join(dir, "vectors.bin"), {
      read: true,
      append: true,
      create: true,
    });
    return new EmbeddingCache(file, dims);
  }

  /** Bytes cut from the end of the file by the first scan (a torn last record), 0 if none. */
  get cutBytes(): number {
    return this.#cutBytes;
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

  /** Indexes every valid record once; cuts what follows the last one. */
  #scan(): Promise<void> {
    return this.#scanned ??= this.#exclusive(async () => {
      const size = (await this.file.stat()).size;
      let at = 0;
      let tail = new Uint8Array(0);
      for (;;) {
        const read = await this.#readAt(
          at + tail.length,
          Math.min(SCAN_BYTES, size - at - tail.length),
        );
        const bytes = tail.length === 0 ? read : concatBytes([tail, read]);
        const { used, damaged } = this.#indexRecords(bytes, at, size);
        at += used;
        if (damaged || read.length === 0) break;
        tail = bytes.slice(used);
      }
      if (at < size) {
        await this.file.truncate(at);
        this.#cutBytes = size - at;
      }
    });
  }

  /**
   * Notes where the whole records at the start of `bytes` lie (`bytes` starts
   * at file offset `base` of a file of `size` bytes); stops at an incomplete
   * record, or at a damaged one (one that cannot fit in the file is), which
   * ends the good part of the file.
   */
  #indexRecords(
    bytes: Uint8Array,
    base: number,
    size: number,
  ): { used: number; damaged: boolean } {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let used = 0;
    while (used + HEADER_BYTES <= bytes.length) {
      if (view.getUint32(used, true) !== MAGIC) return { used, damaged: true };
      const dims = view.getUint32(used + 4, true);
      const end = used + HEADER_BYTES + dims * 4;
      if (base + end > size) return { used, damaged: true };
      if (end > bytes.length) break;
      if (!checksOut(bytes, used, end)) return { used, damaged: true };
      if (dims === this.dims) this.#offsets.set(keyAt(bytes, used), base + used);
      used = end;
    }
    return { used, damaged: false };
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
 * An {@linkcode Embedder} that answers documents from an {@linkcode EmbeddingCache}
 * and sends only the misses to the model it wraps. Queries are not cached.
 */
export class CachedEmbedder implements Embedder {
  readonly #stats = { hits: 0, misses: 0 };
  #shared = 0;

  /** Recent queries' vectors, least recently used first. */
  readonly #queries = new Map<string, Float32Array>();

  private constructor(
    private readonly inner: Embedder,
    private readonly cache: EmbeddingCache,
    /** The store's folder, whose shared vectors (see `shared_vectors.ts`) are asked on a miss. */
    private readonly storeDir?: string,
  ) {}

  /** Wraps `inner` with the cache of its model in the store at `storeDir`. */
  static async open(inner: Embedder, storeDir: string): Promise<CachedEmbedder> {
    const cache = await EmbeddingCache.open(embeddingCacheDir(storeDir, inner.id), inner.dims);
    return new CachedEmbedder(inner, cache, storeDir);
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

  /** Hits, misses and the bytes cut from a torn end. */
  get stats(): CacheStats {
    return { ...this.#stats, cutBytes: this.cache.cutBytes };
  }

  /** Embeds documents, computing (once each) only the texts not cached yet. */
  async embedDocuments(texts: readonly string[], urgent?: boolean): Promise<Float32Array[]> {
    const keys = texts.map((text) => sha256HexSync(text));
    const vectors = await this.cache.getMany(keys);
    const missing = new Map<string, string>();
    keys.forEach((key, i) => {
      if (!vectors[i]) missing.set(key, texts[i]!);
    });
    const computed = new Map<string, Float32Array>();
    if (missing.size > 0) {
      // The team may have computed some already: only the rest go to the model, and back to it.
      const shared = this.storeDir ? sharedVectorsOf(this.storeDir) : undefined;
      const found = await shared?.getMany(this.id, [...missing.keys()]) ?? [];
      [...missing.keys()].forEach((key, i) => {
        const vector = found[i];
        if (vector?.length !== this.dims) return;
        computed.set(key, vector);
        missing.delete(key);
        this.#shared++;
      });
      if (missing.size > 0) {
        const fresh = await this.inner.embedDocuments([...missing.values()], urgent);
        const entries = [...missing.keys()].map((key, i) => [key, fresh[i]!] as const);
        for (const [key, vector] of entries) computed.set(key, vector);
        await shared?.putMany(this.id, entries);
      }
      await this.cache.putMany([...computed]);
    }
    this.#stats.hits += texts.length - vectors.filter((vector) => !vector).length;
    this.#stats.misses += vectors.filter((vector) => !vector).length;
    return keys.map((key, i) => vectors[i] ?? computed.get(key)!.slice());
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
