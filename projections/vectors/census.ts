/**
 * What the log, read to its head, gives vectors to: the documents a vectors
 * projection caught up with the log must hold, per source. `cairn verify`
 * compares it with what the projection holds, which its checkpoint alone
 * cannot tell (a rebuild that lost a source writes a checkpoint that agrees).
 * @module
 */
import { embeddedChunksOf } from "../../events/kinds/code.ts";
import type { StoredEvent } from "../../events/schema.ts";
import { touchedKey, type VectorSource, type Waiting, waitingOf } from "./backlog.ts";

/** The sources the census counts: an entity's facts are not documents a count can follow. */
export type CountedSource = Exclude<VectorSource, "entity">;

/** Counts, per source, the documents the events noted so far leave with a vector. */
export class VectorCensus {
  #live = new Map<string, Waiting>();

  /** `unreadable` says which blobs are missing or damaged: their documents get no vector. */
  constructor(private readonly unreadable: (hash: string) => boolean = () => false) {}

  /** Takes in the next event of the log. */
  note(event: StoredEvent): void {
    const touched = touchedKey(event);
    if (touched) this.#live.delete(touched);
    const waiting = waitingOf(event);
    // Entities' facts are not counted: one added twice, or removed, is no document a count follows.
    if (waiting?.source === "entity") return;
    // A revision gives no vector back to a memory forgotten before it (a team member's late edit).
    if (waiting && (event.type !== "memory.revised" || this.#live.has(waiting.key))) {
      this.#live.set(waiting.key, { ...waiting, documents: this.#readable(event, waiting) });
    }
    if (event.type === "project.deleted") {
      for (const [key, document] of this.#live) {
        if (document.source === "code" && document.project === event.data.project) {
          this.#live.delete(key);
        }
      }
    }
  }

  /** Documents with a vector per source; a turn counts once, however many windows it is embedded in. */
  counts(): Record<CountedSource, number> {
    const counts = { memory: 0, code: 0, turn: 0 };
    // No entity is noted (see `note`).
    for (const document of this.#live.values()) {
      counts[document.source as CountedSource] += document.documents;
    }
    return counts;
  }

  /** How many of the documents `event` gives have a readable text. */
  #readable(event: StoredEvent, waiting: Waiting): number {
    if (event.type === "file.indexed") {
      return embeddedChunksOf(event.data).filter((chunk) => !this.unreadable(chunk.text)).length;
    }
    if (event.type === "turn.ingested") return this.unreadable(event.data.text) ? 0 : 1;
    return waiting.documents;
  }
}

/**
 * What is wrong when `held` (a caught-up projection's vectors per source) is
 * not what the census counts: memories and code chunks must match, turns hold
 * at least one vector each (entities are not counted); undefined when they agree.
 */
export function censusDisagrees(
  census: Record<CountedSource, number>,
  held: Record<CountedSource, number>,
): string | undefined {
  const wrong = (["memory", "code", "turn"] as const).filter((source) =>
    source === "turn" ? held.turn < census.turn : held[source] !== census[source]
  );
  if (wrong.length === 0) return undefined;
  const vectors = (source: CountedSource) =>
    `${held[source]} ${NAMES[source]} ${held[source] === 1 ? "vector" : "vectors"}`;
  return `holds ${
    wrong.map((source) => `${vectors(source)} where the log has ${census[source]}`).join(", ")
  }`;
}

const NAMES = { memory: "memory", code: "code chunk", turn: "session turn" } as const;
