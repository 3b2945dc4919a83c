/**
 * Memory history: every change of every memory, so that memories as they
 * were at a past moment (`as_of`) and a memory's versions are read without
 * folding the log.
 * @module
 */
import type { EventOf, StoredEvent } from "../events/schema.ts";
import { KeyedJournal, type KeyedOp } from "./keyed_journal.ts";
import { KeyedProjection } from "./keyed_projection.ts";

/** `T` as stored: JSON keeps no undefined field. */
type Defined<T> = { [K in keyof T]: Exclude<T[K], undefined> };
type Remembered = Defined<EventOf<"memory.remembered">["data"]>;
type Revised = Defined<EventOf<"memory.revised">["data"]>;

/** One change of a memory, as an event of the log made it. */
export type MemoryChange =
  & {
    /** When its event was appended. */
    at: string;
    /**
     * The latest append time of the memory changes up to it (ms), when later
     * than `at` (a clock set back): a moment before that sees neither this
     * change nor any after it, as a fold of the log stops at the first event
     * appended past the moment.
     */
    reach?: number;
  }
  & (
    | { change: "remembered"; fields: Omit<Remembered, "id" | "entities" | "relations"> }
    | { change: "revised"; fields: Omit<Revised, "id"> }
    | { change: "forgotten"; fields: Record<string, never> }
  );

/** A memory as it was at a moment, in the shape queries return memories. */
export interface PastMemory {
  id: string;
  project: string | null;
  kind: string;
  content: string;
  tags: string[];
  source?: string;
  external_id?: string;
  created_at: string;
  updated_at: string;
  occurred_at?: string;
  valid_from?: string;
  valid_to?: string;
  forgotten_at?: string;
}

const memoryKey = (id: string) => `m\0${id}`;

/**
 * The changes of every memory not purged, kept in `<dir>` (or in memory). A
 * purge drops a memory's every change, as the compaction that follows drops
 * its events from the log.
 */
export class MemoryHistory extends KeyedProjection<MemoryChange[]> {
  readonly name = "memory_history";
  readonly version = 1;
  /** Each memory's changes, oldest first; memories in the order they were first remembered. */
  #memories = new Map<string, MemoryChange[]>();
  /** The latest append time among the changes held. */
  #reach = -Infinity;

  /** Opens (creating) the history kept in `dir`. */
  static async open(dir: string): Promise<MemoryHistory> {
    const { journal, entries, seq } = await KeyedJournal.open<MemoryChange[]>(dir);
    const history = new MemoryHistory(journal, seq);
    for (const [key, changes] of entries) history.#memories.set(key.slice(2), changes);
    history.#reach = history.#latest();
    return history;
  }

  /** A history held in memory only, empty. */
  static inMemory(): MemoryHistory {
    return new MemoryHistory(undefined, 0);
  }

  /** The changes of memory `id`, oldest first (none for an unknown or purged one). */
  changesOf(id: string): readonly MemoryChange[] {
    return this.#memories.get(id) ?? [];
  }

  /**
   * Every memory as it was at `moment` (ms): the changes appended by then
   * applied (revisions merged, forgotten ones marked), in the order they were
   * first remembered. As a fold of the log up to its first event appended
   * after `moment` would give.
   */
  asOf(moment: number): Map<string, PastMemory> {
    const memories = new Map<string, PastMemory>();
    for (const [id, changes] of this.#memories) {
      let memory: PastMemory | undefined;
      for (const { at, reach = Date.parse(at), change, fields } of changes) {
        if (reach > moment) break;
        if (change === "remembered") {
          const { project, ...rest } = fields;
          memory = { ...rest, id, project, created_at: at, updated_at: at };
        } else if (memory && change === "revised") {
          memory = { ...memory, ...fields, updated_at: at };
        } else if (memory && change === "forgotten") {
          memory.forgotten_at = at;
        }
      }
      if (memory) memories.set(id, memory);
    }
    return memories;
  }

  count(): Promise<number> {
    return Promise.resolve(this.#memories.size);
  }

  protected fold(events: readonly StoredEvent[]): KeyedOp<MemoryChange[]>[] {
    const ops: KeyedOp<MemoryChange[]>[] = [];
    for (const event of events) {
      if (event.type === "memory.purged") {
        if (!this.#memories.delete(event.data.id)) continue;
        ops.push([memoryKey(event.data.id)]);
        // Its changes leave the log at the compaction that follows: their times count no more.
        this.#reach = this.#latest();
        continue;
      }
      const change = changeOf(event, this.#reach);
      if (!change) continue;
      const id = (event.data as { id: string }).id;
      const changes = this.#memories.get(id);
      // A revision or a forgetting of a memory never remembered changes nothing.
      if (!changes && change.change !== "remembered") continue;
      const next = [...(changes ?? []), change];
      this.#memories.set(id, next);
      this.#reach = Math.max(this.#reach, Date.parse(change.at));
      ops.push([memoryKey(id), next]);
    }
    return ops;
  }

  protected *entries(): Iterable<readonly [string, MemoryChange[]]> {
    for (const [id, changes] of this.#memories) yield [memoryKey(id), changes];
  }

  protected clear(): void {
    this.#memories.clear();
    this.#reach = -Infinity;
  }

  /** The latest append time among the changes held. */
  #latest(): number {
    let latest = -Infinity;
    for (const changes of this.#memories.values()) {
      for (const { at, reach = Date.parse(at) } of changes) latest = Math.max(latest, reach);
    }
    return latest;
  }
}

/** The change a memory event makes, stamped with `reach` when the clock went back; else undefined. */
function changeOf(event: StoredEvent, reach: number): MemoryChange | undefined {
  const at = event.ts;
  const when = { at, ...(reach > Date.parse(at) ? { reach } : {}) };
  switch (event.type) {
    case "memory.remembered": {
      const { id: _id, entities: _entities, relations: _relations, ...fields } = event.data;
      return { ...when, change: "remembered", fields: defined(fields) };
    }
    case "memory.revised": {
      const { id: _id, ...fields } = event.data;
      return { ...when, change: "revised", fields: defined(fields) };
    }
    case "memory.forgotten":
      return { ...when, change: "forgotten", fields: {} };
    default:
      return undefined;
  }
}

/** A copy of `value` without its undefined fields, as they are stored. */
function defined<T extends object>(value: T): Defined<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Defined<T>;
}
