import { createHash } from "node:crypto";
import { join } from "node:path";
import { exists, writeAll } from "./durable_fs.ts";

const encoder = new TextEncoder();
// A text read back must be the text written, a leading U+FEFF included: its hash names it.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** The sha256 of a text's UTF-8 bytes, as lowercase hex. */
export async function sha256Hex(text: string | Uint8Array): Promise<string> {
  const bytes = typeof text === "string" ? encoder.encode(text) : text;
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The sha256 of a text's UTF-8 bytes, as lowercase hex, computed synchronously. */
export function sha256HexSync(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Raised when a blob is missing or its content does not match its name. */
export class BlobError extends Error {
  override name = "BlobError";
}

/** Blobs written and held from compaction until disposed: see {@linkcode BlobStore.hold}. */
export interface BlobHold extends Disposable {
  /** The texts' hashes, in order. */
  readonly hashes: string[];
}

/** Options for a {@linkcode BlobStore}. */
export interface BlobStoreOptions {
  /**
   * Keep the texts last written, up to this many characters, in memory: the
   * projections that apply the events referring to them then need not read
   * them back from disk. Default 0 (none).
   */
  recentChars?: number;
}

/**
 * A content-addressed store of texts beside the log: each text is saved once
 * under its sha256 (`blobs/ab/abcdef…`), so events stay small and identical
 * content is stored once. Writes are durable before `put` resolves.
 */
export class BlobStore {
  readonly #recentChars: number;
  /** Texts written by this instance, oldest first, up to `recentChars` characters in all. */
  #recent = new Map<string, string>();
  #recentSize = 0;
  #shards = new Set<string>();
  /** Blobs whose events are not in the log yet, by how many writers hold them. */
  #held = new Map<string, number>();

  constructor(private readonly dir: string, options: BlobStoreOptions = {}) {
    this.#recentChars = options.recentChars ?? 0;
  }

  /** Stores `text` (if not already there) and returns its hash. */
  async put(text: string): Promise<string> {
    const [hash] = await this.putMany([text]);
    return hash!;
  }

  /** Stores many texts; their fsyncs run concurrently so the disk can coalesce them. */
  async putMany(texts: readonly string[]): Promise<string[]> {
    using held = await this.hold(texts);
    return held.hashes;
  }

  /**
   * Stores many texts as {@linkcode putMany} does, and keeps compaction from
   * removing them until the hold is disposed: a writer holds its texts until
   * the events that name them are in the log. Held from before the first write.
   */
  async hold(texts: readonly string[]): Promise<BlobHold> {
    const hashes = await Promise.all(texts.map((text) => sha256Hex(text)));
    for (const hash of hashes) this.#held.set(hash, (this.#held.get(hash) ?? 0) + 1);
    const release = () => {
      for (const hash of hashes) {
        const holders = this.#held.get(hash)! - 1;
        if (holders === 0) this.#held.delete(hash);
        else this.#held.set(hash, holders);
      }
    };
    try {
      const unique = new Map<string, string>();
      hashes.forEach((hash, i) => unique.set(hash, texts[i]!));
      const todo = [...unique.entries()];
      const lanes = Array.from({ length: Math.min(16, todo.length) }, async () => {
        for (let item = todo.pop(); item; item = todo.pop()) await this.#write(item[0], item[1]);
      });
      await Promise.all(lanes);
      for (const [hash, text] of unique) this.#remember(hash, text);
    } catch (error) {
      release();
      throw error;
    }
    return { hashes, [Symbol.dispose]: release };
  }

  /** Whether a writer of this process holds the blob (see {@linkcode hold}). */
  isHeld(hash: string): boolean {
    return this.#held.has(hash);
  }

  /** Reads a blob's text; throws {@linkcode BlobError} if it is missing or damaged. */
  async get(hash: string): Promise<string> {
    const recent = this.#recent.get(hash);
    if (recent !== undefined) return recent;
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(this.#path(hash));
    } catch (error) {
      throw missingAsBlobError(error, hash);
    }
    return checkedText(bytes, hash);
  }

  /** {@linkcode get}, synchronously: for readers that cannot wait, such as a search. */
  getSync(hash: string): string {
    const recent = this.#recent.get(hash);
    if (recent !== undefined) return recent;
    let bytes: Uint8Array;
    try {
      bytes = Deno.readFileSync(this.#path(hash));
    } catch (error) {
      throw missingAsBlobError(error, hash);
    }
    return checkedText(bytes, hash);
  }

  /** True when the blob is present. */
  has(hash: string): Promise<boolean> {
    return exists(this.#path(hash));
  }

  /** When the blob was written, in epoch milliseconds. */
  async modifiedAt(hash: string): Promise<number> {
    return (await Deno.stat(this.#path(hash))).mtime?.getTime() ?? 0;
  }

  /** Deletes a blob (used by compaction for content that must leave the store). */
  async remove(hash: string): Promise<void> {
    this.#forget(hash);
    await Deno.remove(this.#path(hash)).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }

  /** Every stored hash. */
  async *list(): AsyncIterable<string> {
    let shards: Deno.DirEntry[];
    try {
      shards = await Array.fromAsync(Deno.readDir(this.dir));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    for (const shard of shards) {
      if (!shard.isDirectory) continue;
      for await (const entry of Deno.readDir(join(this.dir, shard.name))) {
        if (/^[0-9a-f]{64}$/.test(entry.name)) yield entry.name;
      }
    }
  }

  #remember(hash: string, text: string): void {
    if (text.length > this.#recentChars) return;
    this.#forget(hash);
    this.#recent.set(hash, text);
    this.#recentSize += text.length;
    for (const [old, oldText] of this.#recent) {
      if (this.#recentSize <= this.#recentChars) break;
      this.#recent.delete(old);
      this.#recentSize -= oldText.length;
    }
  }

  #forget(hash: string): void {
    const text = this.#recent.get(hash);
    if (text === undefined) return;
    this.#recent.delete(hash);
    this.#recentSize -= text.length;
  }

  #path(hash: string): string {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new BlobError(`"${hash}" is not a blob hash`);
    return join(this.dir, hash.slice(0, 2), hash);
  }

  async #write(hash: string, text: string): Promise<void> {
    const path = this.#path(hash);
    if (await exists(path)) {
      // Mark it as fresh so a concurrent compaction does not collect it.
      const now = new Date();
      await Deno.utime(path, now, now);
      return;
    }
    const shard = hash.slice(0, 2);
    if (!this.#shards.has(shard)) {
      await Deno.mkdir(join(this.dir, shard), { recursive: true });
      this.#shards.add(shard);
    }
    const tmp = `${path}.${crypto.randomUUID()}.tmp`;
    const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
    try {
      await writeAll(file, encoder.encode(text));
      await file.syncData();
    } finally {
      file.close();
    }
    await Deno.rename(tmp, path);
  }
}

function missingAsBlobError(error: unknown, hash: string): unknown {
  return error instanceof Deno.errors.NotFound ? new BlobError(`blob ${hash} is missing`) : error;
}

function checkedText(bytes: Uint8Array, hash: string): string {
  if (sha256HexSync(bytes) !== hash) throw new BlobError(`blob ${hash} is damaged`);
  return decoder.decode(bytes);
}
