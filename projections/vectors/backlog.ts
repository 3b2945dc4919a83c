/**
 * What the vectors projection has still to embed, read ahead in the log: how
 * many documents of each source and project wait for a vector, and which
 * waiting events a later one already undoes (a file indexed again or removed,
 * a project deleted, a memory forgotten, a turn retracted, an entity deleted). Those are never
 * embedded: deleting a project whose vectors are behind costs nothing. It also
 * keeps the memory events past the checkpoint, which the vectors take ahead of
 * the code and turns before them: a memory is found by meaning seconds after it
 * is remembered, even behind a repository's thousands of chunks.
 * @module
 */
import { embeddedChunksOf } from "../../events/kinds/code.ts";
import type { StoredEvent } from "../../events/schema.ts";

/** The kinds of documents that have vectors. */
export type VectorSource = "memory" | "code" | "turn" | "entity";

/** Documents of one source and project still without a vector. */
export interface PendingDocuments {
  source: VectorSource;
  project: string | null;
  documents: number;
  /** Set on the code chunks of the files the caller's `lowered` picked out, counted apart. */
  lowered?: true;
}

/** An event that gives documents to embed, as the backlog remembers it. */
export interface Waiting {
  seq: number;
  key: string;
  project: string | null;
  source: VectorSource;
  documents: number;
  /** The file, for code. */
  path?: string;
}

/** What the backlog reads of the log: its events from one on, and the last one's number. */
export interface LogView {
  read(from: number): AsyncIterable<StoredEvent>;
  readonly head: number;
}

/** The events past the vectors' checkpoint that give documents to embed, and what undoes them. */
export class VectorBacklog {
  /** The checkpoint the backlog was read from; undefined before the first read. */
  #from: number | undefined;
  #readTo = 0;
  #waiting = new Map<number, Waiting>();
  /** The last event that replaces or removes each document group. */
  #lastTouch = new Map<string, number>();
  /** The last `project.deleted` of each project. */
  #deletedAt = new Map<string, number>();
  /** The memory events past the checkpoint, by number. */
  #memoryEvents = new Map<number, StoredEvent>();
  /** Per memory, the last of its events already applied ahead of the checkpoint. */
  #ahead = new Map<string, number>();
  #reading: Promise<void> = Promise.resolve();

  constructor(private readonly log: LogView) {}

  /**
   * Reads what the log holds past `checkpoint` that was not read or
   * observed yet, and forgets what is at or before it (already embedded).
   */
  advance(checkpoint: number): Promise<void> {
    this.#reading = this.#reading.then(() => this.#advance(checkpoint));
    return this.#reading;
  }

  /**
   * The projection was emptied: the next advance forgets everything read and
   * reads the log again from its checkpoint (until then, appended events are
   * left to that read).
   */
  restart(): void {
    this.#from = undefined;
  }

  /** Takes in events just appended, so the log need not be read again for them. */
  observe(events: readonly StoredEvent[]): void {
    // Before the first read, that read takes them in.
    if (this.#from === undefined) return;
    for (const event of events) this.#note(event);
  }

  /** True when a later event in the log undoes what `event` would embed. */
  undone(event: StoredEvent): boolean {
    const waiting = waitingOf(event);
    return waiting !== undefined && this.#undone(waiting);
  }

  /**
   * The memory events past `after` not yet applied ahead, oldest first, at
   * most `limit` of them: what a batch applies after its own events.
   */
  memoriesAhead(after: number, limit: number): StoredEvent[] {
    const ahead: StoredEvent[] = [];
    for (const [seq, event] of [...this.#memoryEvents].sort(([a], [b]) => a - b)) {
      if (ahead.length === limit) break;
      if (seq > after && !this.appliedAhead(event)) ahead.push(event);
    }
    return ahead;
  }

  /**
   * The memories past the checkpoint whose text has no vector yet: remembered
   * or revised, neither applied ahead nor forgotten since.
   */
  waitingMemories(): string[] {
    const ids = new Set<string>();
    for (const event of this.#memoryEvents.values()) {
      const gives = event.type === "memory.remembered" ||
        (event.type === "memory.revised" && event.data.content !== undefined);
      if (gives && !this.appliedAhead(event) && !this.undone(event)) ids.add(event.data.id);
    }
    return [...ids];
  }

  /** Notes that `events` (from {@linkcode memoriesAhead}) were applied and saved. */
  markAhead(events: readonly StoredEvent[]): void {
    for (const event of events) {
      const key = memoryKeyOf(event)!;
      this.#ahead.set(key, Math.max(this.#ahead.get(key) ?? 0, event.seq));
    }
  }

  /** True when `event` is a memory's, and it or a later event of that memory was applied ahead. */
  appliedAhead(event: StoredEvent): boolean {
    const key = memoryKeyOf(event);
    return key !== undefined && event.seq <= (this.#ahead.get(key) ?? 0);
  }

  /**
   * Documents waiting for a vector, per source and project, leaving out those
   * already undone or applied ahead; the code of files `lowered` picks out is
   * counted apart.
   */
  pending(lowered: (path: string) => boolean = () => false): PendingDocuments[] {
    const totals = new Map<string, PendingDocuments>();
    for (const waiting of this.#waiting.values()) {
      if (this.#undone(waiting) || waiting.seq <= (this.#ahead.get(waiting.key) ?? 0)) continue;
      const apart = waiting.path !== undefined && lowered(waiting.path);
      const key = `${waiting.source}\0${waiting.project ?? ""}\0${apart}`;
      const total = totals.get(key) ?? {
        source: waiting.source,
        project: waiting.project,
        documents: 0,
        ...(apart ? { lowered: true as const } : {}),
      };
      total.documents += waiting.documents;
      totals.set(key, total);
    }
    return [...totals.values()].filter((total) => total.documents > 0);
  }

  async #advance(checkpoint: number): Promise<void> {
    if (this.#from === undefined || checkpoint < this.#from) {
      // First read, or the projection was reset: everything past the checkpoint is waiting.
      this.#from = checkpoint;
      this.#readTo = checkpoint;
      this.#waiting.clear();
      this.#lastTouch.clear();
      this.#deletedAt.clear();
      this.#memoryEvents.clear();
      this.#ahead.clear();
    }
    for (const seq of this.#waiting.keys()) if (seq <= checkpoint) this.#waiting.delete(seq);
    for (const seq of this.#memoryEvents.keys()) {
      if (seq <= checkpoint) this.#memoryEvents.delete(seq);
    }
    for (const [key, seq] of this.#ahead) if (seq <= checkpoint) this.#ahead.delete(key);
    if (this.log.head <= this.#readTo) return;
    for await (const event of this.log.read(this.#readTo + 1)) this.#note(event);
  }

  /** Notes one event; noting it twice, or out of order, changes nothing. */
  #note(event: StoredEvent): void {
    if (this.#from !== undefined && event.seq <= this.#from) return;
    this.#readTo = Math.max(this.#readTo, event.seq);
    const waiting = waitingOf(event);
    if (waiting) this.#waiting.set(event.seq, waiting);
    if (memoryKeyOf(event) !== undefined) this.#memoryEvents.set(event.seq, event);
    const touched = touchedKey(event);
    if (touched) {
      this.#lastTouch.set(touched, Math.max(this.#lastTouch.get(touched) ?? 0, event.seq));
    }
    if (event.type === "project.deleted") {
      const { project } = event.data;
      this.#deletedAt.set(project, Math.max(this.#deletedAt.get(project) ?? 0, event.seq));
    }
  }

  #undone(waiting: Waiting): boolean {
    if ((this.#lastTouch.get(waiting.key) ?? 0) > waiting.seq) return true;
    return waiting.source === "code" && waiting.project !== null &&
      (this.#deletedAt.get(waiting.project) ?? 0) > waiting.seq;
  }
}

/** How many documents `event` gives to embed (none for most events). */
export function documentsOf(event: StoredEvent): number {
  return waitingOf(event)?.documents ?? 0;
}

/** What an event gives to embed, if anything. */
export function waitingOf(event: StoredEvent): Waiting | undefined {
  const { seq } = event;
  switch (event.type) {
    case "memory.remembered":
      return { seq, key: memoryKey(event.data.id), ...MEMORY };
    case "memory.revised":
      return event.data.content === undefined
        ? undefined
        : { seq, key: memoryKey(event.data.id), ...MEMORY };
    case "file.indexed":
      return {
        seq,
        key: fileKey(event.data.project, event.data.path),
        project: event.data.project,
        source: "code",
        path: event.data.path,
        documents: embeddedChunksOf(event.data).length,
      };
    case "turn.ingested":
      return {
        seq,
        key: turnKey(event.data.session, event.data.line),
        project: event.data.project,
        source: "turn",
        documents: 1,
      };
    case "entity.created":
      return entityWaiting(seq, event.data.name, event.data.observations.length);
    case "observations.added":
      return entityWaiting(seq, event.data.entity, event.data.observations.length);
    case "relation.created":
      return entityWaiting(seq, event.data.from, 2);
    default:
      return undefined;
  }
}

/** An entity's facts waiting for their vectors (entities are searched in every project). */
function entityWaiting(seq: number, name: string, documents: number): Waiting {
  return { seq, key: entityKey(name), project: null, source: "entity", documents };
}

/** The document group an event replaces or removes, if any. */
export function touchedKey(event: StoredEvent): string | undefined {
  switch (event.type) {
    case "memory.forgotten":
    case "memory.purged":
      return memoryKey(event.data.id);
    case "file.indexed":
    case "file.removed":
      return fileKey(event.data.project, event.data.path);
    case "turn.ingested":
    case "turn.retracted":
      return turnKey(event.data.session, event.data.line);
    case "entity.deleted":
      return entityKey(event.data.name);
    default:
      return undefined;
  }
}

/** A memory waiting for its vector (counted under no project: a revision does not name it). */
const MEMORY = { project: null, source: "memory", documents: 1 } as const;

/** The key of the memory `event` changes the vector of, if it is a memory's event. */
function memoryKeyOf(event: StoredEvent): string | undefined {
  switch (event.type) {
    case "memory.remembered":
    case "memory.revised":
    case "memory.forgotten":
    case "memory.purged":
      return memoryKey(event.data.id);
    default:
      return undefined;
  }
}

const memoryKey = (id: string) => `memory\0${id}`;
const fileKey = (project: string, path: string) => `code\0${project}\0${path}`;
const turnKey = (session: string, line: number) => `turn\0${session}\0${line}`;
const entityKey = (name: string) => `entity\0${name}`;
