import type { StoredEvent } from "../events/schema.ts";

/**
 * A read model derived from the log. It must be idempotent: after a crash the
 * runner may hand it again events it already applied.
 */
export interface Projection {
  /** Stable name, used for its checkpoint and `cairn replay --projection NAME`. */
  readonly name: string;
  /** Bump when the projection's code changes what it stores: it is rebuilt on open. */
  readonly version: number;
  /** Slow projections (vectors) catch up behind the others, without holding up writes. */
  readonly background?: boolean;
  /**
   * How much work applying `event` takes (texts to embed), for a background
   * projection: the runner ends a batch early when its events hold much, so
   * each batch's results land (and are saved) within a few seconds.
   */
  workOf?(event: StoredEvent): number;
  /** Applies a batch of consecutive events, durably, before resolving. */
  apply(batch: readonly StoredEvent[]): Promise<void>;
  /**
   * Sees events as soon as they are appended, before any is applied (a
   * projection that reads ahead keeps up without reading the log again).
   */
  observe?(events: readonly StoredEvent[]): void;
  /** Drops everything, leaving the projection as if no event had been applied. */
  reset(): Promise<void>;
  /**
   * How many entries (documents, vectors) it holds, if counting is cheap. The runner records the
   * count with each checkpoint; an open that finds another number means files
   * were lost or damaged behind the checkpoint's back, and the projection is
   * rebuilt from the log.
   */
  count?(): Promise<number>;
  /**
   * The last event its files were written for, when that can be fewer than
   * the events applied (events that change nothing write nothing). Recorded
   * with each checkpoint like {@linkcode Projection.count}: a journal lost or
   * cut behind the checkpoint's back shows as an earlier event, and the
   * projection is rebuilt.
   */
  savedThrough?(): number | undefined;
  /** A hash of the projection's whole content, equal for equal content (replay checks). */
  digest(): Promise<string>;
  /**
   * Gives up work that waits on something slow or absent (a model still
   * loading): the runner calls it as it stops, before waiting for the batch
   * in flight, which then fails without writing and is applied again later.
   */
  stop?(): void;
  /** Releases files and handles. */
  close(): Promise<void>;
}

/** Where a projection stands: the code version it was built with and the last event applied. */
export interface Checkpoint {
  version: number;
  seq: number;
  /** The projection's {@linkcode Projection.count} when the checkpoint was written. */
  count?: number;
  /** The projection's {@linkcode Projection.savedThrough} when the checkpoint was written. */
  saved?: number;
}

/** Keeps each projection's checkpoint. */
export interface CheckpointStore {
  read(name: string): Promise<Checkpoint | undefined>;
  write(name: string, checkpoint: Checkpoint): Promise<void>;
  /** Forgets a projection's checkpoint, durably: the next open rebuilds the projection. */
  remove(name: string): Promise<void>;
}
