/**
 * The graph's hops for recall's walk: from nodes of one kind to the nodes of
 * another that they are linked to. Node kinds are named as recall names its
 * documents (`memory`, `code`, `turn`) and the hubs between them (`entity`,
 * `file`, `symbol`); a node's id is a memory's id, a chunk's id, a turn's,
 * file's or symbol's key, or an entity's name.
 * @module
 */
import type { KuzuDb } from "../kuzu.ts";

/** Each hop's query: from the nodes `a` whose ids are `$ids` to the nodes `b` linked to them. */
const HOPS = {
  memory: {
    entity:
      "MATCH (a:Memory)-[:MENTIONS]->(b:Entity) WHERE a.id IN $ids RETURN a.id AS a, b.name AS b",
    file: "MATCH (a:Memory)-[:MENTIONS]->(b:File) WHERE a.id IN $ids RETURN a.id AS a, b.key AS b",
    symbol:
      "MATCH (a:Memory)-[:MENTIONS]->(b:Symbol) WHERE a.id IN $ids RETURN a.id AS a, b.key AS b",
  },
  code: {
    file: "MATCH (a:Chunk)<-[:CONTAINS]-(b:File) WHERE a.id IN $ids RETURN a.id AS a, b.key AS b",
  },
  turn: {
    file: "MATCH (a:Turn)-[:TOUCHED]->(b:File) WHERE a.key IN $ids RETURN a.key AS a, b.key AS b",
  },
  entity: {
    // A relation counts both ways.
    entity:
      "MATCH (a:Entity)-[:RELATES]-(b:Entity) WHERE a.name IN $ids RETURN a.name AS a, b.name AS b",
    // Forgotten memories stay out of the walk.
    memory:
      `MATCH (b:Memory)-[:MENTIONS]->(a:Entity) WHERE a.name IN $ids AND b.forgotten_at = "" RETURN a.name AS a, b.id AS b`,
  },
  file: {
    // The files changed most often with them.
    file:
      "MATCH (a:FilePartners) WHERE a.key IN $ids AND a.partners IS NOT NULL UNWIND a.partners AS b RETURN a.key AS a, b AS b",
    code: "MATCH (a:File)-[:CONTAINS]->(b:Chunk) WHERE a.key IN $ids RETURN a.key AS a, b.id AS b",
    turn: "MATCH (b:Turn)-[:TOUCHED]->(a:File) WHERE a.key IN $ids RETURN a.key AS a, b.key AS b",
    memory:
      `MATCH (b:Memory)-[:MENTIONS]->(a:File) WHERE a.key IN $ids AND b.forgotten_at = "" RETURN a.key AS a, b.id AS b`,
  },
  symbol: {
    code:
      "MATCH (b:Chunk)-[:DEFINES|:REFERS]->(a:Symbol) WHERE a.key IN $ids RETURN a.key AS a, b.id AS b",
    memory:
      `MATCH (b:Memory)-[:MENTIONS]->(a:Symbol) WHERE a.key IN $ids AND b.forgotten_at = "" RETURN a.key AS a, b.id AS b`,
  },
} as const;

/** A kind of node a hop starts from. */
export type HopFrom = keyof typeof HOPS;

/** One hop the graph answers: from nodes of kind `from` to the linked nodes of kind `to`. */
export type Hop = { [F in HopFrom]: { from: F; to: keyof (typeof HOPS)[F] } }[HopFrom];

/** A link a hop found: from the node `a` to the node `b`, by id. */
export interface HopLink {
  a: string;
  b: string;
}

/**
 * The links of `hop` from the nodes `ids`, at most `cap` of them (so that a
 * hub cannot flood the walk), in no particular order. Forgotten memories are
 * never reached.
 */
export async function hopLinks(
  db: KuzuDb,
  hop: Hop,
  ids: readonly string[],
  cap: number,
): Promise<HopLink[]> {
  // The cap is written into the query, not bound: it must be a count, never text.
  if (!Number.isSafeInteger(cap) || cap < 0) throw new RangeError(`not a count: ${cap}`);
  const query = (HOPS[hop.from] as Record<string, string>)[hop.to]!;
  const rows = await db.run(`${query} LIMIT ${cap}`, { ids: [...ids] });
  return rows.map((row) => ({ a: row.a as string, b: row.b as string }));
}
