/**
 * A team's shared vectors in a JetStream key-value bucket, `<stream>_VECTORS`:
 * key `v.<model>.<sha256 of the text>` (the model id hashed to 16 hex digits),
 * value the vector's float32 bytes. Best effort by design: while the server is
 * unreachable every lookup is a miss and nothing is written, and the store
 * computes its vectors itself; a connection that fails is tried again 30 s later.
 * @module
 */
import type { NatsConnection } from "@nats-io/transport-node";
import { type KV, Kvm } from "@nats-io/kv";
import { sha256HexSync } from "../../events/blobs.ts";
import type { SharedVectors } from "../embed/shared_vectors.ts";
import type { TeamConfig } from "./config.ts";
import { connectToTeam } from "./connect.ts";

/** How long after a failed connection the next is tried. */
const RETRY_MS = 30_000;
/** Lookups or writes in flight at once. */
const PARALLEL = 64;

/** The shared vectors of a team (see the module doc). */
export class TeamVectors implements SharedVectors {
  #bucket: Promise<KV> | undefined;
  #connection: NatsConnection | undefined;
  #retryAt = 0;
  /** Vectors found in the bucket and written to it, for reports and tests. */
  readonly counts = { found: 0, written: 0 };

  constructor(private readonly team: TeamConfig, private readonly timeoutMs = 1_000) {}

  async getMany(model: string, keys: readonly string[]): Promise<Array<Float32Array | undefined>> {
    const bucket = await this.#open();
    if (!bucket) return keys.map(() => undefined);
    const found = await inBatches(keys, async (key) => {
      try {
        const entry = await bucket.get(keyOf(model, key));
        if (!entry || entry.operation !== "PUT" || entry.value.length % 4 !== 0) return undefined;
        // A copy: the value may be a view on a larger buffer (a Node Buffer from a pool).
        return new Float32Array(new Uint8Array(entry.value).buffer);
      } catch {
        return undefined;
      }
    });
    this.counts.found += found.filter(Boolean).length;
    return found;
  }

  async putMany(
    model: string,
    entries: ReadonlyArray<readonly [string, Float32Array]>,
  ): Promise<void> {
    const bucket = await this.#open();
    if (!bucket) return;
    const written = await inBatches(entries, async ([key, vector]) => {
      try {
        const bytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
        await bucket.put(keyOf(model, key), bytes.slice());
        return true;
      } catch {
        return false;
      }
    });
    this.counts.written += written.filter(Boolean).length;
  }

  /** Closes the connection, if one was made. */
  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = undefined;
    this.#bucket = undefined;
    await connection?.close().catch(() => {});
  }

  async #open(): Promise<KV | undefined> {
    if (Date.now() < this.#retryAt) return undefined;
    this.#bucket ??= (async () => {
      const connection = await connectToTeam(this.team, this.timeoutMs, true);
      this.#connection = connection;
      return await new Kvm(connection).create(`${this.team.stream}_VECTORS`, {
        history: 1,
        replicas: this.team.replicas,
      });
    })();
    try {
      return await this.#bucket;
    } catch {
      await this.close();
      this.#retryAt = Date.now() + RETRY_MS;
      return undefined;
    }
  }
}

function keyOf(model: string, key: string): string {
  return `v.${sha256HexSync(model).slice(0, 16)}.${key}`;
}

/** `work` over `items`, {@linkcode PARALLEL} at a time, results in order. */
async function inBatches<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += PARALLEL) {
    results.push(...await Promise.all(items.slice(i, i + PARALLEL).map(work)));
  }
  return results;
}
