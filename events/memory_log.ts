import { validateEvent } from "./schema.ts";
import type { NewEvent, StoredEvent } from "./schema.ts";
import type { Clock, EventLog, LogRecovery, RewriteStats } from "./log.ts";

/** An event log held in memory: same contract as the file log, for tests and tools. */
export class MemoryLog implements EventLog {
  readonly recovery: LogRecovery = {};
  #events: StoredEvent[] = [];
  #head = 0;
  #closed = false;

  constructor(private readonly clock: Clock = () => new Date()) {}

  get head(): number {
    return this.#head;
  }

  append(events: readonly NewEvent[]): Promise<StoredEvent[]> {
    if (this.#closed) return Promise.reject(new Error("log is closed"));
    let validated: NewEvent[];
    try {
      validated = events.map(validateEvent);
    } catch (error) {
      return Promise.reject(error);
    }
    const ts = this.clock().toISOString();
    const stored = validated.map((event, i) => ({ ...event, seq: this.#head + i + 1, ts }));
    this.#events.push(...stored.map((event) => structuredClone(event)));
    this.#head += stored.length;
    return Promise.resolve(stored);
  }

  async *read(from = 1): AsyncIterable<StoredEvent> {
    for (const event of this.#events) {
      if (event.seq >= from) yield structuredClone(event);
    }
  }

  size(): Promise<number> {
    return Promise.resolve(JSON.stringify(this.#events).length);
  }

  async rewrite(keep: (event: StoredEvent) => boolean): Promise<RewriteStats> {
    const bytesBefore = await this.size();
    const kept = this.#events.filter(keep);
    const dropped = this.#events.length - kept.length;
    this.#events = kept;
    return { kept: kept.length, dropped, bytesBefore, bytesAfter: await this.size() };
  }

  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }
}
