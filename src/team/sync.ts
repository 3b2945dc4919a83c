/**
 * One sync pass of a store with its team: publish what this store wrote in
 * shared projects and has not published, in log order, each event once (its
 * message id is its name in the team); then take in what the other members
 * wrote, per stream filter from where the log says it stopped, appending each
 * batch and its position in one group commit, so a crash between reading and
 * appending leaves nothing applied and the next pass reads the batch again.
 * @module
 */
import type { NewEvent, StoredEvent } from "../../events/schema.ts";
import type { Origin } from "../../events/origin.ts";
import type { Store } from "../service/store.ts";
import { compactStore } from "../service/compact.ts";
import { purgeDurably } from "../service/pending_purge.ts";
import { UserError } from "../errors.ts";
import type { TeamConfig } from "./config.ts";
import { Ledger } from "./ledger.ts";
import { memberId } from "./member.ts";
import { readFilters, sharePolicy } from "./share_policy.ts";
import type { StreamMessage, TeamStream } from "./stream.ts";
import { TeamUnreachable } from "./unreachable.ts";
import { decodeMessage, encodeMessage, messageId } from "./wire.ts";

/** A batch of only own, already recorded events is recorded as read from this many messages on. */
const RECORD_OWN_ONLY = 64;
/** Published pairs are recorded in the log after this many acknowledged events (and at the end). */
const MARK_EVERY = 256;

/** What one pass did. */
export interface SyncReport {
  member: string;
  /** Events of this store published now. */
  published: number;
  /** Messages read from the stream. */
  read: number;
  /** Events of other members appended to the log. */
  applied: number;
  /** This store's own events read back (never applied again). */
  own: number;
  /** Events of others already held (a repeated message): skipped. */
  repeated: number;
  /** Memories folded into an earlier one with the same text. */
  folded: number;
  /** Own changes applied again after an earlier change from the stream, so the later one wins. */
  reapplied: number;
  /** Events of this store still to publish. */
  pending: number;
  /** Of those, events larger than the server takes (a very long session turn): never published. */
  tooLarge: number;
  ms: number;
}

/** Test hooks: a fault injected at a chosen moment of a pass. */
export interface SyncFaults {
  /** Called after the server acknowledged an event, before its place is recorded in the log. */
  afterPublish?: (seq: number) => void | Promise<void>;
  /** Called with a batch read from the stream just before it is appended to the log. */
  beforeAppend?: (events: readonly NewEvent[]) => void | Promise<void>;
}

/** Options of {@linkcode TeamSync.pass}. */
export interface SyncOptions {
  faults?: SyncFaults;
  /** How long to wait for a server to answer (default 2 s). */
  timeoutMs?: number;
}

/** Sync state kept between passes in one process (the owner's), per store. */
const kept = new WeakMap<Store, { key: string; sync: TeamSync }>();

/** The sync of `store` with `team`, kept between passes while the settings stay the same. */
export async function teamSyncFor(store: Store, team: TeamConfig): Promise<TeamSync> {
  const key = JSON.stringify(team);
  const held = kept.get(store);
  if (held?.key === key) return held.sync;
  const sync = new TeamSync(store, team, await memberId(store.dir, team));
  kept.set(store, { key, sync });
  return sync;
}

/** A store's sync with its team (see the module doc). */
export class TeamSync {
  #ledger: Ledger | undefined;
  /** Passes run one at a time. */
  #running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly team: TeamConfig,
    /** This store's name in the team. */
    readonly member: string,
  ) {}

  /**
   * The ledger folded from the log up to its head; folded again from the start
   * when events it had not folded in yet are gone (a compaction dropped them).
   */
  async ledger(): Promise<Ledger> {
    if (this.#ledger && await this.#ledger.catchUp(this.store.log)) return this.#ledger;
    this.#ledger = new Ledger(this.member, this.team.stream, sharePolicy(this.team));
    await this.#ledger.catchUp(this.store.log);
    return this.#ledger;
  }

  /** Runs one pass (after any pass under way); offline, it throws `TeamUnreachable`. */
  pass(options: SyncOptions = {}): Promise<SyncReport> {
    const next = this.#running.then(() => this.#pass(options), () => this.#pass(options));
    this.#running = next.catch(() => {});
    return next;
  }

  async #pass(options: SyncOptions): Promise<SyncReport> {
    const started = performance.now();
    const report: SyncReport = {
      member: this.member,
      published: 0,
      read: 0,
      applied: 0,
      own: 0,
      repeated: 0,
      folded: 0,
      reapplied: 0,
      pending: 0,
      tooLarge: 0,
      ms: 0,
    };
    let stream: TeamStream;
    try {
      // The NATS client is loaded by the first pass, not by every command that could sync.
      const { TeamStream } = await import("./stream.ts");
      stream = await TeamStream.open(this.team, options.timeoutMs);
    } catch (error) {
      if (!(error instanceof TeamUnreachable)) throw error;
      const waiting = (await this.ledger()).pending().length;
      throw new TeamUnreachable(
        `${error.message}${waiting ? `; ${waiting} event(s) wait to be published` : ""}`,
      );
    }
    try {
      await this.#publish(stream, report, options.faults);
      for (const filter of readFilters(sharePolicy(this.team))) {
        const ledger = await this.ledger();
        for await (const messages of stream.read(filter, ledger.cursor(filter) + 1)) {
          await this.#takeIn(filter, messages, report, options.faults);
        }
      }
      // What taking in decided here (a duplicate folded) goes out in the same pass.
      if (report.folded > 0) await this.#publish(stream, report, options.faults);
    } catch (error) {
      // What the ledger folded ahead of the log is folded again from the log.
      this.#ledger = undefined;
      throw error;
    } finally {
      await stream.close();
    }
    report.pending = (await this.ledger()).pending().length;
    report.ms = performance.now() - started;
    return report;
  }

  async #publish(
    stream: TeamStream,
    report: SyncReport,
    faults: SyncFaults | undefined,
  ): Promise<void> {
    let ledger = await this.ledger();
    const owed = ledger.purgesOwed();
    if (owed.length > 0) {
      await this.store.append(owed.map((id) => ({ type: "memory.purged", v: 1, data: { id } })));
      ledger = await this.ledger();
    }
    let pairs: Array<[number, number]> = [];
    let marks = memoryMarks();
    const mark = async () => {
      if (pairs.length === 0) return;
      await this.store.append([{
        type: "team.synced",
        v: 1,
        data: { stream: this.team.stream, published: pairs, ...marksData(marks) },
      }]);
      pairs = [];
      marks = memoryMarks();
      ledger = await this.ledger();
    };
    try {
      for (const { event, subject } of ledger.pending()) {
        const text = await encodeMessage(this.member, event, this.store.blobs);
        // Headers and framing take a little of the server's limit.
        if (new TextEncoder().encode(text).length > stream.maxPayload - 1024) {
          report.tooLarge++;
          continue;
        }
        const streamSeq = await stream.publish(subject, text, messageId(this.member, event.seq));
        await faults?.afterPublish?.(event.seq);
        pairs.push([event.seq, streamSeq]);
        noteMemory(marks, event, subject);
        report.published++;
        if (pairs.length >= MARK_EVERY) await mark();
      }
    } finally {
      await mark();
    }
  }

  /** Appends a batch read under `filter`, with its position, in one group commit. */
  async #takeIn(
    filter: string,
    messages: readonly StreamMessage[],
    report: SyncReport,
    faults: SyncFaults | undefined,
  ): Promise<void> {
    const ledger = await this.ledger();
    const stream = this.team.stream;
    const events: NewEvent[] = [];
    const blobs = new Map<string, string>();
    const ownSeen: Array<[number, number]> = [];
    /** This store's own changes decided here: appended with the batch, folded in after it. */
    const folds: NewEvent[] = [];
    // Memories remembered and purged among what is read, kept in the mark: a purge compacts them
    // out of the log, and the mark is what then says the team knew them.
    const marks = memoryMarks();
    // Each event is folded into the ledger as it is decided, so the rest of the batch sees it.
    const add = (event: NewEvent) => {
      events.push(event);
      ledger.observe({ ...event, seq: 0, ts: "" } as StoredEvent);
    };
    for (const message of messages) {
      report.read++;
      const incoming = decodeMessage(
        message.text,
        `message ${message.streamSeq} of stream ${stream}`,
      );
      const place = {
        stream,
        subject: message.subject,
        stream_seq: message.streamSeq,
        ts: incoming.ts,
      };
      if (incoming.member === this.member) {
        report.own++;
        // Published by a pass that died before recording it: recorded now.
        if (!ledger.published.has(incoming.seq)) {
          ownSeen.push([incoming.seq, message.streamSeq]);
          ledger.markPublished(incoming.seq, message.streamSeq);
          noteMemory(marks, incoming.event, message.subject);
        }
        // This store's memory with the text of one before it in the stream is folded into that
        // one, by this store alone (its author), and the forgetting published like any change.
        const event = incoming.event;
        const into = event.type === "memory.remembered"
          ? ledger.duplicateOf(message.subject, event, message.streamSeq)
          : undefined;
        if (into && event.type === "memory.remembered") {
          folds.push({
            type: "memory.forgotten",
            v: 1,
            data: {
              id: event.data.id,
              reason: `duplicate of ${into} (folded when the team synced)`,
            },
          });
          report.folded++;
        }
        continue;
      }
      if (ledger.applied.has(`${incoming.member}\0${incoming.seq}`)) {
        report.repeated++;
        continue;
      }
      const origin: Origin = { member: incoming.member, seq: incoming.seq, ...place };
      for (const [hash, text] of Object.entries(incoming.blobs)) blobs.set(hash, text);
      const remote = { ...incoming.event, origin } as NewEvent;
      const later = ledger.ownAfter(
        { ...remote, seq: 0, ts: incoming.ts } as StoredEvent,
        message.streamSeq,
      );
      add(remote);
      noteMemory(marks, remote, message.subject);
      report.applied++;
      // This store's changes placed after it in the stream are applied again, to stay the last.
      for (const own of later) {
        const { seq, ts, origin: _origin, ...written } = own;
        add({
          ...written,
          origin: { ...origin, member: this.member, seq, ts, derived: "reapplied" },
        } as NewEvent);
        report.reapplied++;
      }
    }
    events.push(...folds);
    // A short batch of this store's own events only is read again next time rather than recorded.
    if (events.length === 0 && ownSeen.length === 0 && messages.length < RECORD_OWN_ONLY) return;
    add({
      type: "team.synced",
      v: 1,
      data: {
        stream,
        consumed: { [filter]: messages.at(-1)!.streamSeq },
        ...(ownSeen.length ? { published: ownSeen } : {}),
        ...marksData(marks),
      },
    });
    await faults?.beforeAppend?.(events);
    const hashes = await this.store.blobs.putMany([...blobs.values()]);
    const wrong = [...blobs.keys()].find((hash, i) => hashes[i] !== hash);
    if (wrong) throw new UserError(`a message of stream ${stream} carries a damaged text ${wrong}`);
    if (!events.some((event) => event.type === "memory.purged")) {
      const stored = await this.store.append(events);
      // Own events were not folded in ahead (they had no number yet): the ledger folds the log again.
      if (stored[0]?.seq === ledger.scanned + 1 && folds.length === 0) {
        ledger.scanned = stored.at(-1)!.seq;
      } else this.#ledger = undefined;
      return;
    }
    // A memory another member purged leaves this log too, as a purge here does.
    await purgeDurably(this.store, async () => {
      await this.store.append(events);
      await compactStore(this.store);
    });
    this.#ledger = undefined;
  }
}

/** The memories remembered and purged among events published, for a `team.synced` mark. */
interface MemoryMarks {
  remembered: Record<string, string>;
  purged: string[];
}

function memoryMarks(): MemoryMarks {
  return { remembered: {}, purged: [] };
}

function noteMemory(marks: MemoryMarks, event: NewEvent, subject: string): void {
  if (event.type === "memory.remembered") marks.remembered[event.data.id] = subject;
  if (event.type === "memory.purged") marks.purged.push(event.data.id);
}

function marksData(marks: MemoryMarks): Partial<MemoryMarks> {
  return {
    ...(Object.keys(marks.remembered).length ? { remembered: marks.remembered } : {}),
    ...(marks.purged.length ? { purged: marks.purged } : {}),
  };
}
