/**
 * What a store knows about its syncing, folded from its own log alone: which
 * of its events are published and where, how far each stream filter has been
 * taken in, which events of other members it holds, and the little state that
 * conflicts and duplicates are settled with. There is no other record: a crash
 * anywhere leaves the log, and the ledger is folded from it again.
 * @module
 */
import type { EventLog } from "../../events/log.ts";
import type { NewEvent, StoredEvent } from "../../events/schema.ts";
import { filterMatches, type SharePolicy, sharesProject, sharesSessions } from "./share_policy.ts";
import { subjectOf } from "./subjects.ts";
import { StreamOrder } from "./stream_order.ts";

/** An event of this store waiting to be published, and the subject it goes to. */
export interface Outgoing {
  event: StoredEvent;
  subject: string;
}

/** The sync state of one store, folded from its log (see the module doc). */
export class Ledger {
  /** `member\0seq` of every event taken in from another member. */
  readonly applied = new Set<string>();
  /** This store's log seq → the stream position it was published at. */
  readonly published = new Map<number, number>();
  /** The last log seq folded in. */
  scanned = 0;
  #consumed = new Map<string, number>();
  #originSeqs = new Map<string, number>();
  #memoryProject = new Map<string, string | null>();
  /** Shared memories this store published or took in: id → subject. */
  #sharedMemories = new Map<string, string>();
  /** Shared memories whose purge this store published, took in or has pending. */
  #purges = new Set<string>();
  /** Memories in stream order, for duplicates. */
  #order = new StreamOrder();
  #entityProject = new Map<string, string | null>();
  #sessionProject = new Map<string, string | null>();
  #pending = new Map<number, Outgoing>();
  /** Conflict key → this store's own events under it, in log order. */
  #ownByKey = new Map<string, StoredEvent[]>();

  constructor(
    /** This store's member id. */
    readonly member: string,
    /** The team's stream. */
    readonly stream: string,
    private readonly policy: SharePolicy,
  ) {}

  /**
   * Folds the events of `log` not yet folded in. Resolves to false when some
   * of them are missing (a compaction, a purge's, dropped them before they
   * were folded in): the ledger must then be folded again from the start.
   */
  async catchUp(log: EventLog): Promise<boolean> {
    let whole = true;
    for await (const event of log.read(this.scanned + 1)) {
      if (event.seq !== this.scanned + 1) whole = false;
      this.observe(event);
      this.scanned = event.seq;
    }
    if (log.head !== this.scanned) whole = false;
    this.scanned = log.head;
    return whole;
  }

  /** This store's events still to publish, in log order. */
  pending(): Outgoing[] {
    return [...this.#pending.values()];
  }

  /** The last stream position taken in under `filter` (0: none). */
  cursor(filter: string): number {
    let last = this.#consumed.get(filter) ?? 0;
    for (const [subject, seq] of this.#originSeqs) {
      if (filterMatches(filter, subject)) last = Math.max(last, seq);
    }
    return last;
  }

  /** Where an own event stands in stream order: its position, or after everything when unpublished. */
  ownPosition(seq: number): number {
    return this.published.get(seq) ?? Infinity;
  }

  /**
   * This store's own events about what `event` changes that come after
   * `streamSeq` in stream order (unpublished ones included): applied again
   * after it, they keep the last change in stream order the winner.
   */
  ownAfter(event: StoredEvent, streamSeq: number): StoredEvent[] {
    if (event.type === "memory.purged") return [];
    const later = new Map<number, StoredEvent>();
    for (const key of conflictKeys(event)) {
      for (const own of this.#ownByKey.get(key) ?? []) {
        if (own.type !== "memory.purged" && this.ownPosition(own.seq) > streamSeq) {
          later.set(own.seq, own);
        }
      }
    }
    return [...later.values()].sort((a, b) => a.seq - b.seq);
  }

  /** The memory `event`, remembered at `streamSeq` of `subject`, duplicates (see `StreamOrder`). */
  duplicateOf(
    subject: string,
    event: NewEvent & { type: "memory.remembered" },
    streamSeq: number,
  ): string | undefined {
    return this.#order.duplicateOf(subject, event, streamSeq);
  }

  /** Records that this store's event `seq` is at `streamSeq` (seen in the stream, or acknowledged). */
  markPublished(seq: number, streamSeq: number): void {
    if (this.published.has(seq)) return;
    this.published.set(seq, streamSeq);
    const outgoing = this.#pending.get(seq);
    this.#pending.delete(seq);
    if (outgoing?.event.type.startsWith("memory.")) {
      this.#order.place(outgoing.subject, { pos: streamSeq, event: outgoing.event });
    }
  }

  /** Folds one event of the log in. */
  observe(event: StoredEvent): void {
    if (event.type === "team.synced") {
      if (event.data.stream !== this.stream) return;
      for (const [seq, streamSeq] of event.data.published ?? []) this.markPublished(seq, streamSeq);
      for (const [id, subject] of Object.entries(event.data.remembered ?? {})) {
        this.#sharedMemories.set(id, subject);
      }
      for (const id of event.data.purged ?? []) this.#purges.add(id);
      for (const [filter, seq] of Object.entries(event.data.consumed ?? {})) {
        this.#consumed.set(filter, Math.max(seq, this.#consumed.get(filter) ?? 0));
      }
      return;
    }
    const origin = event.origin;
    if (origin && origin.stream === this.stream) {
      const seen = this.#originSeqs.get(origin.subject) ?? 0;
      this.#originSeqs.set(origin.subject, Math.max(seen, origin.stream_seq));
      if (!origin.derived) this.applied.add(`${origin.member}\0${origin.seq}`);
      if (event.type.startsWith("memory.") && !origin.derived) {
        this.#order.place(origin.subject, { pos: origin.stream_seq, event });
      }
    }
    const project = this.#projectOf(event);
    this.#track(event);
    if (origin) return;
    const owed = event.type === "memory.purged"
      ? this.#sharedMemories.get(event.data.id)
      : undefined;
    if (owed !== undefined && project === undefined) {
      // A purge written again for a memory the log no longer holds: its subject is known.
      this.#purges.add((event.data as { id: string }).id);
      if (!this.published.has(event.seq)) this.#pending.set(event.seq, { event, subject: owed });
      return;
    }
    if (project === undefined) return;
    if (event.type === "memory.purged") this.#purges.add(event.data.id);
    const session = event.type === "turn.ingested" || event.type === "turn.retracted";
    const shared = session
      ? sharesSessions(this.policy, project)
      : sharesProject(this.policy, project);
    if (!shared || this.published.has(event.seq)) return;
    const subject = subjectOf(this.policy.prefix, project, session ? "sessions" : "knowledge");
    this.#pending.set(event.seq, { event, subject });
    for (const key of conflictKeys(event)) {
      const list = this.#ownByKey.get(key) ?? [];
      list.push(event);
      this.#ownByKey.set(key, list);
    }
  }

  /**
   * Shared memories this store has purged and whose purge the team has not
   * had: a purge compacts the log at once, taking the purge with the memory's
   * other events, so it is written again for the team to take.
   */
  purgesOwed(): string[] {
    return [...this.#sharedMemories.keys()].filter((id) =>
      !this.#memoryProject.has(id) && !this.#purges.has(id)
    );
  }

  /** The project a shareable event belongs to; undefined for an event never shared. */
  #projectOf(event: StoredEvent): string | null | undefined {
    switch (event.type) {
      case "memory.remembered":
        return event.data.project;
      case "memory.revised":
      case "memory.forgotten":
      case "memory.purged":
        return this.#memoryProject.get(event.data.id);
      case "entity.created":
        return this.#entityProject.get(event.data.name) ?? event.data.project;
      case "entity.deleted":
        return this.#entityProject.get(event.data.name);
      case "observations.added":
      case "observations.deleted":
        return this.#entityProject.get(event.data.entity);
      case "relation.created":
      case "relation.deleted":
        return this.#entityProject.get(event.data.from) ?? this.#entityProject.get(event.data.to);
      case "turn.ingested":
        return event.data.project;
      case "turn.retracted":
        return this.#sessionProject.get(event.data.session);
      default:
        return undefined;
    }
  }

  /** Keeps what later events are judged by: memories, entities' and sessions' projects. */
  #track(event: StoredEvent): void {
    switch (event.type) {
      case "memory.remembered":
        this.#memoryProject.set(event.data.id, event.data.project);
        // The entities it names are made in its project, as the graph makes them.
        for (const name of event.data.entities ?? []) {
          if (!this.#entityProject.has(name)) this.#entityProject.set(name, event.data.project);
        }
        return;
      case "memory.purged":
        this.#memoryProject.delete(event.data.id);
        return;
      case "entity.created":
        if (!this.#entityProject.has(event.data.name)) {
          this.#entityProject.set(event.data.name, event.data.project);
        }
        return;
      case "turn.ingested":
        this.#sessionProject.set(event.data.session, event.data.project);
        return;
    }
  }
}

/** What an event changes, as conflicts between members are found by. */
function conflictKeys(event: StoredEvent): string[] {
  switch (event.type) {
    case "memory.revised":
    case "memory.forgotten":
    case "memory.purged":
      return [`m\0${event.data.id}`];
    case "entity.created":
    case "entity.deleted":
      return [`e\0${event.data.name}`];
    case "observations.added":
    case "observations.deleted":
      return [`e\0${event.data.entity}`];
    case "relation.created":
    case "relation.deleted":
      return [`r\0${event.data.from}\0${event.data.relation_type}\0${event.data.to}`];
    default:
      return [];
  }
}
