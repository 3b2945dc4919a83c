/**
 * A persistent embedding cache keyed by (model id, sha256(text)), so replay,
 * re-indexing and unchanged chunks never pay for the same embedding twice.
 *
 * One append-only file per model, `<store>/cache/embeddings/<model-id>/vectors.bin`;
 * each record, little-endian: magic u32 | dims u32 | crc32 u32 | sha256 (32
 * bytes) | dims × f32. The checksum covers the hash and the vector, so a torn
 * last record (a crash mid-append) fails it and is cut off on open.
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { writeAll } from "../../events/durable_fs.ts";
import type { Embedder, Truncation } from "./embedder.ts";

const MAGIC = 0x45425645; // "EVBE"
/** Queries whose vectors a {@linkcode CachedEmbedder} keeps in memory. */
const RECENT_QUERIES = 64;
const HEADER_BYTES = 44;

/** Counters of a {@linkcode CachedEmbedder}. */
export interface CacheStats {
  /** Document texts answered from the cache. */
  hits: number;
  /** Document texts that had to be embedded. */
  misses: number;
  /** Bytes cut from the end of the file on open (a torn last record). */
  cutBytes: number;
}

/** The cache directory of one model in a store. */
export function embeddingCacheDir(storeDir: string, modelId: string): string {
  return join(storeDir, "cache", "embeddings", modelId.replace(/[^A-Za-z0-9._-]/g, "_"));
}

/** The cache key of a text: its sha256, hex. */
export function textKey(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** An on-disk map from text hash to vector for one model, loaded into memory on open. */
export class EmbeddingCache {
  readonly #vectors = new Map<string, Float32Array>();
  #cutBytes = 0;

  private constructor(
    private readonly file: Deno.FsFile,
    /** Width of the vectors stored. */
    readonly dims: number,
  ) {}

  /** Opens (creating) the cache in `dir`; records of another width are ignored. */
  static async open(dir: string, dims: number): Promise<EmbeddingCache> {
    await Deno.mkdir(dir, { recursive: true });
    const path = join(dir, "vectors.bin");
    const file = await Deno.open(path, { read: true, write: true, create: true });
    try {
      const bytes = await Deno.readFile(path);
      const cache = new EmbeddingCache(file, dims);
      const good = cache.#load(bytes);
      if (good < bytes.length) {
        await file.truncate(good);
        cache.#cutBytes = bytes.length - good;
      }
      await file.seek(0, Deno.SeekMode.End);
      return cache;
    } catch (error) {
      file.close();
      throw error;
    }
  }

  /** Bytes cut from the end of the file on open (a torn last record), 0 if none. */
  get cutBytes(): number {
    return this.#cutBytes;
  }

  /** Number of vectors held. */
  get size(): number {
    return this.#vectors.size;
  }

  /** The vector of a text key, if cached. */
  get(key: string): Float32Array | undefined {
    return this.#vectors.get(key);
  }

  /** Appends new entries durably (one write, one fsync); keys already held are skipped. */
  async putMany(entries: readonly (readonly [string, Float32Array])[]): Promise<void> {
    const fresh = entries.filter(([key]) => !this.#vectors.has(key));
    if (fresh.length === 0) return;
    const recordBytes = HEADER_BYTES + this.dims * 4;
    const out = new Uint8Array(fresh.length * recordBytes);
    fresh.forEach(([key, vector], i) => {
      if (vector.length !== this.dims) {
        throw new RangeError(`vector of ${vector.length} dims in a cache of ${this.dims}`);
      }
      encodeRecord(out.subarray(i * recordBytes, (i + 1) * recordBytes), key, vector);
    });
    await writeAll(this.file, out);
    await this.file.syncData();
    for (const [key, vector] of fresh) this.#vectors.set(key, vector);
  }

  /** Closes the file. */
  close(): void {
    this.file.close();
  }

  /** Loads every valid record; returns the offset after the last one. */
  #load(bytes: Uint8Array): number {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = 0;
    while (at + HEADER_BYTES <= bytes.length) {
      if (view.getUint32(at, true) !== MAGIC) break;
      const dims = view.getUint32(at + 4, true);
      const end = at + HEADER_BYTES + dims * 4;
      if (end > bytes.length) break;
      const body = bytes.subarray(at + 12, end);
      if ((crc32(body) >>> 0) !== view.getUint32(at + 8, true)) break;
      if (dims === this.dims) {
        const key = Array.from(bytes.subarray(at + 12, at + 44), hex).join("");
        this.#vectors.set(key, new Float32Array(bytes.slice(at + HEADER_BYTES, end).buffer));
      }
      at = end;
    }
    return at;
  }
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

  /** Recent queries' vectors, least recently used first. */
  readonly #queries = new Map<string, Float32Array>();

  private constructor(private readonly inner: Embedder, private readonly cache: EmbeddingCache) {}

  /** Wraps `inner` with the cache of its model in the store at `storeDir`. */
  static async open(inner: Embedder, storeDir: string): Promise<CachedEmbedder> {
    const cache = await EmbeddingCache.open(embeddingCacheDir(storeDir, inner.id), inner.dims);
    return new CachedEmbedder(inner, cache);
  }

  /** The wrapped model's id. */
  get id(): string {
    return this.inner.id;
  }

  /** The wrapped model's width. */
  get dims(): number {
    return this.inner.dims;
  }

  /** Hits, misses and the bytes cut on open. */
  get stats(): CacheStats {
    return { ...this.#stats, cutBytes: this.cache.cutBytes };
  }

  /** Embeds documents, computing (once each) only the texts not cached yet. */
  async embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    const keys = texts.map(textKey);
    const missing = new Map<string, string>();
    keys.forEach((key, i) => {
      if (!this.cache.get(key)) missing.set(key, texts[i]!);
    });
    this.#stats.hits += texts.length - keys.filter((key) => missing.has(key)).length;
    this.#stats.misses += keys.filter((key) => missing.has(key)).length;
    if (missing.size > 0) {
      const computed = await this.inner.embedDocuments([...missing.values()]);
      await this.cache.putMany([...missing.keys()].map((key, i) => [key, computed[i]!] as const));
    }
    return keys.map((key) => this.cache.get(key)!.slice());
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
    this.cache.close();
    await this.inner.close();
  }
}
