/**
 * The knowledge graph's entities as they were at a date, folded from the
 * log's events up to then as the lexical index folds them (no graph database
 * is replayed): what recall shows of the entities it finds, asked as of then.
 * @module
 */
import { type EventLog, eventsUntil } from "../../events/log.ts";
import {
  foldEntities,
  type IndexedEntity,
  indexedEntity,
} from "../../projections/text_entities.ts";
import { parseAsOf } from "./dates.ts";

/** The entities at `asOf` (an ISO 8601 date), by name. */
export async function entitiesThen(
  log: EventLog,
  asOf: string,
): Promise<Map<string, IndexedEntity>> {
  const limit = parseAsOf(asOf);
  // Up to the first event logged after the date, as `graph --as-of` reads the log.
  const docs = await foldEntities(
    eventsUntil(log.read(1), (event) => Date.parse(event.ts) > limit),
  );
  return new Map([...docs.values()].map((doc) => [doc.id, indexedEntity(doc)]));
}
