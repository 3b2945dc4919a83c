import type { NewEvent, StoredEvent } from "./schema.ts";

/** What opening a log found and repaired, for the user to see. */
export interface LogRecovery {
  /** A torn last record (a write cut short by a crash) was cut off. */
  truncatedTail?: { segment: string; offset: number; bytes: number; reason: string };
}

/** Counts from a compaction. */
export interface RewriteStats {
  kept: number;
  dropped: number;
  bytesBefore: number;
  bytesAfter: number;
}

/**
 * The append-only event log, the only source of truth of a store.
 * Implementations: {@linkcode MemoryLog} for tests, {@linkcode FileLog} on disk.
 */
export interface EventLog {
  /** Sequence number of the last event; 0 when the log is empty. */
  readonly head: number;
  /** What was repaired on open, if anything. */
  readonly recovery: LogRecovery;
  /**
   * Appends the events in one group commit. When the promise resolves they are
   * durable and numbered; if it rejects, none of them is visible.
   */
  append(events: readonly NewEvent[]): Promise<StoredEvent[]>;
  /** Reads the events whose sequence number is at least `from`, in order. */
  read(from?: number): AsyncIterable<StoredEvent>;
  /** Total bytes the log occupies. */
  size(): Promise<number>;
  /**
   * Rewrites the log keeping only the events `keep` accepts, with their sequence
   * numbers unchanged. Atomic: a crash leaves either the old or the new log.
   */
  rewrite(keep: (event: StoredEvent) => boolean): Promise<RewriteStats>;
  /** Flushes and releases the log. */
  close(): Promise<void>;
}

/** Raised when the log is damaged in a way that cannot be repaired without losing events. */
export class LogCorruptError extends Error {
  override name = "LogCorruptError";
  constructor(
    message: string,
    /** The damaged segment file. */
    readonly segment: string,
    /** Byte offset of the damage within the segment, when known. */
    readonly offset?: number,
  ) {
    super(message);
  }
}

/** Clock used to stamp appended events; injectable for deterministic tests. */
export type Clock = () => Date;

/** The events of `events` before the first one `past` says is beyond the end. */
export async function* eventsUntil(
  events: AsyncIterable<StoredEvent>,
  past: (event: StoredEvent) => boolean,
): AsyncGenerator<StoredEvent> {
  for await (const event of events) {
    if (past(event)) return;
    yield event;
  }
}
