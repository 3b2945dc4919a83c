import { createHash } from "node:crypto";
import type { StoredEvent } from "../events/schema.ts";
import type { KeyedJournal, KeyedOp } from "./keyed_journal.ts";
import type { Projection } from "./projection.ts";

/**
 * A projection small enough to hold in memory, whose state is keyed JSON
 * values: a subclass folds events into its own structures and names the keys
 * they changed, which a {@linkcode KeyedJournal} keeps on disk (without one,
 * the projection lives in memory only: a store opened without it, tests). It
 * remembers the last event it folded and skips those it is handed again, so
 * applying is idempotent even for folds whose order matters.
 */
export abstract class KeyedProjection<V> implements Projection {
  abstract readonly name: string;
  abstract readonly version: number;
  #seq: number;

  protected constructor(private readonly journal: KeyedJournal<V> | undefined, seq: number) {
    this.#seq = seq;
  }

  /** Folds events (each past the last one folded) into the state; returns the keys changed, in order. */
  protected abstract fold(events: readonly StoredEvent[]): KeyedOp<V>[];
  /** The whole state as keyed values: setting them in this order rebuilds it. */
  protected abstract entries(): Iterable<readonly [string, V]>;
  /** Empties the state. */
  protected abstract clear(): void;
  abstract count(): Promise<number>;

  /** The last event its journal was written for (see `Projection.savedThrough`). */
  savedThrough(): number | undefined {
    return this.journal?.written;
  }

  async apply(batch: readonly StoredEvent[]): Promise<void> {
    const fresh = batch.filter((event) => event.seq > this.#seq);
    const ops = fresh.length > 0 ? this.fold(fresh) : [];
    this.#seq = Math.max(this.#seq, batch.at(-1)?.seq ?? 0);
    // A batch handed again after a failed write still writes what that write left out.
    await this.journal?.write(this.#seq, ops, () => this.entries());
  }

  async reset(): Promise<void> {
    this.clear();
    this.#seq = 0;
    await this.journal?.reset();
  }

  /**
   * Writes the files afresh from the state held now, so that no value deleted
   * (a purged memory's text) stays in them.
   */
  async rewrite(): Promise<void> {
    await this.journal?.snapshot(this.#seq, this.entries());
  }

  /**
   * A hash of the state's keyed values, in key order: the order keys were set
   * in is not content (a compaction, which keeps only each thing's last event,
   * changes it).
   */
  digest(): Promise<string> {
    const hash = createHash("sha256");
    const sorted = [...this.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const entry of sorted) hash.update(JSON.stringify(entry) + "\n");
    return Promise.resolve(hash.digest("hex"));
  }

  close(): Promise<void> {
    this.journal?.close();
    return Promise.resolve();
  }
}
