/**
 * The knowledge graph's entities as they were at a date, folded from the
 * log's events up to then as the lexical index folds them (no graph database
 * is replayed): what recall shows of the entities it finds, asked as of then.
 * @module
 */
import type { EventLog } from "../../events/log.ts";
import type { StoredEvent } from "../../events/schema.ts";
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
  const docs = await foldEntities(until(log.read(1), parseAsOf(asOf)));
  return new Map([...docs.values()].map((doc) => [doc.id, indexedEntity(doc)]));
}

/** The events up to the first logged after `limit` (ms), as `graph --as-of` reads them. */
async function* until(events: AsyncIterable<StoredEvent>, limit: number) {
  for await (const event of events) {
    if (Date.parse(event.ts) > limit) return;
    yield event;
  }
}
