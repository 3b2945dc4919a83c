import type { KuzuDb } from "../../projections/graph/kuzu.ts";
import type { Edge } from "./ppr.ts";

/** Most memories pulled in through one entity, so a hub cannot flood the walk. */
const PER_ENTITY = 200;

/**
 * The part of the graph around the seed memories that personalized PageRank
 * walks: memory ─mentions→ entity, entity ─relates→ entity, and the other
 * memories that mention those entities. Node ids are `memory:<id>` and
 * `entity:<name>`; forgotten memories are left out.
 */
export async function memoryNeighbourhood(
  db: KuzuDb,
  seedMemoryIds: readonly string[],
): Promise<Edge[]> {
  if (seedMemoryIds.length === 0) return [];
  const edges: Edge[] = [];
  const mentioned = await db.run(
    `MATCH (m:Memory)-[:MENTIONS]->(e:Entity) WHERE m.id IN $ids RETURN m.id AS m, e.name AS e`,
    { ids: [...seedMemoryIds] },
  );
  const entities = [...new Set(mentioned.map((row) => row.e as string))];
  for (const row of mentioned) edges.push([`memory:${row.m}`, `entity:${row.e}`]);
  if (entities.length === 0) return edges;
  const related = await db.run(
    `MATCH (a:Entity)-[:RELATES]-(b:Entity) WHERE a.name IN $names RETURN a.name AS a, b.name AS b`,
    { names: entities },
  );
  for (const row of related) edges.push([`entity:${row.a}`, `entity:${row.b}`]);
  const reach = [...new Set([...entities, ...related.map((row) => row.b as string)])];
  const others = await db.run(
    `MATCH (m:Memory)-[:MENTIONS]->(e:Entity) WHERE e.name IN $names AND m.forgotten_at = ""
     WITH e, collect(m.id) AS ids
     UNWIND list_slice(ids, 1, ${PER_ENTITY + 1}) AS id RETURN e.name AS e, id AS m`,
    { names: reach },
  );
  for (const row of others) edges.push([`memory:${row.m}`, `entity:${row.e}`]);
  return edges;
}
