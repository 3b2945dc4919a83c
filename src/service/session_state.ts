/**
 * What the log says about ingested transcripts: where each one's next read
 * starts and the live turns of each session, so a re-ingest appends only what
 * changed.
 * @module
 */
import type { EventLog } from "../../events/log.ts";
import type { NewEvent } from "../../events/schema.ts";

/** A stored turn as a re-ingest compares it: unchanged turns append nothing. */
export interface KnownTurn {
  /** The hash of its redacted text. */
  text: string;
  provisional: boolean;
  /** Its file mentions and compact boundaries, as one comparable string. */
  details: string;
  startedAt: string;
}

/** The transcripts read so far and the live turns of every session. */
export interface Known {
  /** Where each transcript's next read starts, and its session. */
  transcripts: Map<string, { offset: number; session: string }>;
  /** The live turns of each session, by line. */
  turns: Map<string, Map<number, KnownTurn>>;
}

/** A turn's mentions and compact boundaries as one string, to tell a changed turn. */
export function detailsKey(
  mentions: ReadonlyArray<{ path: string; absolute?: string | undefined; tool: string }>,
  compactions: readonly number[] = [],
): string {
  const files = mentions.map((m) => `${m.tool}\0${m.path}\0${m.absolute ?? ""}`).join("\n");
  return compactions.length === 0 ? files : `${files}\n#compact ${compactions.join(",")}`;
}

/** Folds every session event of the log. */
export async function readKnown(log: EventLog): Promise<Known> {
  const known: Known = { transcripts: new Map(), turns: new Map() };
  const events: NewEvent[] = [];
  for await (const event of log.read()) {
    if (event.type.startsWith("turn.") || event.type === "transcript.advanced") events.push(event);
  }
  remember(known, events);
  return known;
}

/** Folds events just appended (or read) into `known`. */
export function remember(known: Known, events: readonly NewEvent[]): void {
  for (const event of events) {
    if (event.type === "transcript.advanced") {
      known.transcripts.set(event.data.path, {
        offset: event.data.offset,
        session: event.data.session,
      });
    } else if (event.type === "turn.ingested") {
      const { session, line, text, provisional, mentions, compactions, started_at } = event.data;
      let turns = known.turns.get(session);
      if (!turns) known.turns.set(session, turns = new Map());
      turns.set(line, {
        text,
        provisional,
        details: detailsKey(mentions, compactions),
        startedAt: started_at,
      });
    } else if (event.type === "turn.retracted") {
      known.turns.get(event.data.session)?.delete(event.data.line);
    }
  }
}
