import type { KuzuDb } from "./kuzu.ts";

/**
 * The graph's tables. Absent strings are stored as "" (Kùzu cannot infer the
 * type of a null parameter); a memory's project "" means global.
 */
const DDL = [
  `CREATE NODE TABLE IF NOT EXISTS Memory(id STRING, project STRING, kind STRING, content STRING,
    tags STRING[], content_key STRING, source STRING, external_id STRING, created_at STRING, updated_at STRING,
    occurred_at STRING, valid_from STRING, valid_to STRING, forgotten_at STRING, seq INT64,
    PRIMARY KEY(id))`,
  `CREATE NODE TABLE IF NOT EXISTS Entity(name STRING, entity_type STRING, project STRING,
    observations STRING[], PRIMARY KEY(name))`,
  "CREATE REL TABLE IF NOT EXISTS MENTIONS(FROM Memory TO Entity)",
  "CREATE REL TABLE IF NOT EXISTS RELATES(FROM Entity TO Entity, relation_type STRING)",
];

/** Creates every table that does not exist yet. */
export async function createSchema(db: KuzuDb): Promise<void> {
  for (const statement of DDL) await db.exec(statement);
}
