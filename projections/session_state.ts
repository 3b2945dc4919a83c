/**
 * What the log says about ingested transcripts: where each one's next read
 * starts and the live turns of each session, so a re-ingest appends only what
 * changed.
 * @module
 */
import type { StoredEvent } from "../events/schema.ts";
import { KeyedJournal, type KeyedOp } from "./keyed_journal.ts";
import { KeyedProjection } from "./keyed_projection.ts";

/** A stored turn as a re-ingest compares it: unchanged turns append nothing. */
export interface KnownTurn {
  /** The hash of its redacted text. */
  text: string;
  provisional: boolean;
  /** Its file mentions and compact boundaries, as one comparable string. */
  details: string;
  startedAt: string;
}

/** Where a transcript's next read starts, and its session. */
export interface KnownTranscript {
  offset: number;
  session: string;
}

/** The transcripts read so far and the live turns of every session. */
export interface Known {
  /** Where each transcript's next read starts, and its session. */
  transcripts: ReadonlyMap<string, KnownTranscript>;
  /** The live turns of each session, by line, in the order they were stored. */
  turns: ReadonlyMap<string, ReadonlyMap<number, KnownTurn>>;
}

/** A turn's mentions and compact boundaries as one string, to tell a changed turn. */
export function detailsKey(
  mentions: ReadonlyArray<{ path: string; absolute?: string | undefined; tool: string }>,
  compactions: readonly number[] = [],
): string {
  const files = mentions.map((m) => `${m.tool}\0${m.path}\0${m.absolute ?? ""}`).join("\n");
  return compactions.length === 0 ? files : `${files}\n#compact ${compactions.join(",")}`;
}

type Value = KnownTranscript | KnownTurn;

const transcriptKey = (path: string) => `t\0${path}`;
const turnKey = (session: string, line: number) => `l\0${session}\0${line}`;

/** The session events folded into {@linkcode Known}, kept in `<dir>` (or in memory). */
export class SessionState extends KeyedProjection<Value> {
  readonly name = "session_state";
  readonly version = 1;
  #transcripts = new Map<string, KnownTranscript>();
  #turns = new Map<string, Map<number, KnownTurn>>();

  /** Opens (creating) the state kept in `dir`. */
  static async open(dir: string): Promise<SessionState> {
    const { journal, entries, seq } = await KeyedJournal.open<Value>(dir);
    const state = new SessionState(journal, seq);
    for (const [key, value] of entries) {
      // A session id is whatever the transcript says (a NUL too); the line number comes last.
      const last = key.lastIndexOf("\0");
      if (key.startsWith("t\0")) state.#transcripts.set(key.slice(2), value as KnownTranscript);
      else state.#turnsOf(key.slice(2, last)).set(Number(key.slice(last + 1)), value as KnownTurn);
    }
    return state;
  }

  /** A state held in memory only, empty. */
  static inMemory(): SessionState {
    return new SessionState(undefined, 0);
  }

  /** The transcripts and live turns, as of the last event applied. */
  get known(): Known {
    return { transcripts: this.#transcripts, turns: this.#turns };
  }

  count(): Promise<number> {
    let count = this.#transcripts.size;
    for (const turns of this.#turns.values()) count += turns.size;
    return Promise.resolve(count);
  }

  protected fold(events: readonly StoredEvent[]): KeyedOp<Value>[] {
    const ops: KeyedOp<Value>[] = [];
    for (const event of events) {
      if (event.type === "transcript.advanced") {
        const { path, offset, session } = event.data;
        const transcript = { offset, session };
        this.#transcripts.set(path, transcript);
        ops.push([transcriptKey(path), transcript]);
      } else if (event.type === "turn.ingested") {
        const { session, line, text, provisional, mentions, compactions, started_at } = event.data;
        const turn = {
          text,
          provisional,
          details: detailsKey(mentions, compactions),
          startedAt: started_at,
        };
        this.#turnsOf(session).set(line, turn);
        ops.push([turnKey(session, line), turn]);
      } else if (event.type === "turn.retracted") {
        const { session, line } = event.data;
        if (this.#turns.get(session)?.delete(line)) ops.push([turnKey(session, line)]);
      }
    }
    return ops;
  }

  protected *entries(): Iterable<readonly [string, Value]> {
    for (const [path, transcript] of this.#transcripts) yield [transcriptKey(path), transcript];
    for (const [session, turns] of this.#turns) {
      for (const [line, turn] of turns) yield [turnKey(session, line), turn];
    }
  }

  protected clear(): void {
    this.#transcripts.clear();
    this.#turns.clear();
  }

  #turnsOf(session: string): Map<number, KnownTurn> {
    let turns = this.#turns.get(session);
    if (!turns) this.#turns.set(session, turns = new Map());
    return turns;
  }
}
