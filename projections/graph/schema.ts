import type { KuzuDb } from "./kuzu.ts";

/**
 * The graph's tables. Absent strings are stored as "" (Kùzu cannot infer the
 * type of a null parameter); a memory's project "" means global. A file's
 * `FilePartners` are the keys of the files changed most often with it, kept
 * apart from `File` (a history is applied whether or not its files are in
 * the graph yet: a compacted log moves edited files' events after it) and
 * set whole, null when a later history gives none (a relation table would
 * have to be emptied and refilled, and Kùzu loses track of relations deleted
 * in a transaction that created them after a reopen). Keys of code
 * and session nodes carry their project (`<project>\0<path>`), so two projects
 * never share a node.
 */
const DDL = [
  `CREATE NODE TABLE IF NOT EXISTS Memory(id STRING, project STRING, kind STRING, content STRING,
    tags STRING[], content_key STRING, source STRING, external_id STRING, created_at STRING,
    updated_at STRING, occurred_at STRING, valid_from STRING, valid_to STRING, forgotten_at STRING,
    seq INT64, PRIMARY KEY(id))`,
  `CREATE NODE TABLE IF NOT EXISTS Entity(name STRING, entity_type STRING, project STRING,
    observations STRING[], PRIMARY KEY(name))`,
  `CREATE NODE TABLE IF NOT EXISTS File(key STRING, project STRING, path STRING, language STRING,
    PRIMARY KEY(key))`,
  `CREATE NODE TABLE IF NOT EXISTS FilePartners(key STRING, project STRING, partners STRING[],
    PRIMARY KEY(key))`,
  `CREATE NODE TABLE IF NOT EXISTS Chunk(id STRING, project STRING, path STRING, name STRING,
    kind STRING, start_line INT64, end_line INT64, PRIMARY KEY(id))`,
  "CREATE NODE TABLE IF NOT EXISTS Symbol(key STRING, project STRING, name STRING, PRIMARY KEY(key))",
  `CREATE NODE TABLE IF NOT EXISTS Turn(key STRING, session STRING, line INT64, project STRING,
    started_at STRING, compacted INT64, PRIMARY KEY(key))`,
  `CREATE REL TABLE IF NOT EXISTS MENTIONS(FROM Memory TO Entity, FROM Memory TO File,
    FROM Memory TO Symbol)`,
  "CREATE REL TABLE IF NOT EXISTS RELATES(FROM Entity TO Entity, relation_type STRING)",
  "CREATE REL TABLE IF NOT EXISTS CONTAINS(FROM File TO Chunk)",
  "CREATE REL TABLE IF NOT EXISTS DEFINES(FROM Chunk TO Symbol)",
  "CREATE REL TABLE IF NOT EXISTS REFERS(FROM Chunk TO Symbol, kind STRING)",
  "CREATE REL TABLE IF NOT EXISTS TOUCHED(FROM Turn TO File, tool STRING)",
];

/** Creates every table that does not exist yet. */
export async function createSchema(db: KuzuDb): Promise<void> {
  for (const statement of DDL) await db.exec(statement);
}
