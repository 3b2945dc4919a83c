/**
 * What the log, read to its head, gives vectors to: the documents a vectors
 * projection caught up with the log must hold, per source. `cairn verify`
 * compares it with what the projection holds, which its checkpoint alone
 * cannot tell (a rebuild that lost a source writes a checkpoint that agrees).
 * @module
 */
import type { StoredEvent } from "../../events/schema.ts";
import { touchedKey, type VectorSource, type Waiting, waitingOf } from "./backlog.ts";

/** Counts, per source, the documents the events noted so far leave with a vector. */
export class VectorCensus {
  #live = new Map<string, Waiting>();

  /** Takes in the next event of the log. */
  note(event: StoredEvent): void {
    const touched = touchedKey(event);
    if (touched) this.#live.delete(touched);
    const waiting = waitingOf(event);
    if (waiting) this.#live.set(waiting.key, waiting);
    if (event.type === "project.deleted") {
      for (const [key, document] of this.#live) {
        if (document.source === "code" && document.project === event.data.project) {
          this.#live.delete(key);
        }
      }
    }
  }

  /** Documents with a vector per source; a turn counts once, however many windows it is embedded in. */
  counts(): Record<VectorSource, number> {
    const counts = { memory: 0, code: 0, turn: 0 };
    for (const document of this.#live.values()) counts[document.source] += document.documents;
    return counts;
  }
}

/**
 * What is wrong when `held` (a caught-up projection's vectors per source) is
 * not what the census counts: memories and code chunks must match, turns hold
 * at least one vector each; undefined when they agree.
 */
export function censusDisagrees(
  census: Record<VectorSource, number>,
  held: Record<VectorSource, number>,
): string | undefined {
  const wrong = (["memory", "code", "turn"] as const).filter((source) =>
    source === "turn" ? held.turn < census.turn : held[source] !== census[source]
  );
  if (wrong.length === 0) return undefined;
  return `holds ${
    wrong.map((source) =>
      `${held[source]} ${NAMES[source]} vectors where the log has ${census[source]}`
    )
      .join(", ")
  }`;
}

const NAMES = { memory: "memory", code: "code chunk", turn: "session turn" } as const;
