/**
 * The graph's queries about the knowledge graph of the MCP memory server:
 * entities with their observations, and the typed relations between them.
 * @module
 */
import type { KuzuDb } from "../kuzu.ts";

/** An entity with its observations. */
export interface EntityRow {
  name: string;
  entityType: string;
  observations: string[];
}

/** A relation between two entities (`from` → `to`). */
export interface RelationRow {
  from: string;
  to: string;
  relationType: string;
}

/** The names among `names` that an entity has. */
export async function existingEntities(db: KuzuDb, names: readonly string[]): Promise<string[]> {
  const rows = await db.run("MATCH (e:Entity) WHERE e.name IN $names RETURN e.name AS name", {
    names: [...names],
  });
  return rows.map((row) => row.name as string);
}

/** The observations of the entities among `names`, by name; unknown names are left out. */
export async function observationsOf(
  db: KuzuDb,
  names: readonly string[],
): Promise<Map<string, string[]>> {
  const rows = await db.run(
    "MATCH (e:Entity) WHERE e.name IN $names RETURN e.name AS name, e.observations AS o",
    { names: [...names] },
  );
  return new Map(rows.map((row) => [row.name as string, (row.o as string[] | null) ?? []]));
}

/** The entities whose name is `name` but for case. */
export async function entitiesNamedLike(db: KuzuDb, name: string): Promise<string[]> {
  const rows = await db.run(
    "MATCH (e:Entity) WHERE lower(e.name) = lower($name) RETURN e.name AS name",
    { name },
  );
  return rows.map((row) => row.name as string).filter((found) => found !== name).sort();
}

/** How many relations between entities the graph holds. */
export async function relationTotal(db: KuzuDb): Promise<number> {
  const [row] = await db.run("MATCH (:Entity)-[r:RELATES]->(:Entity) RETURN count(r) AS n");
  return Number(row?.n ?? 0);
}

/** How many entities the graph holds. */
export async function entityCount(db: KuzuDb): Promise<number> {
  const [row] = await db.run("MATCH (e:Entity) RETURN count(e) AS n");
  return Number(row?.n ?? 0);
}

/**
 * A page of entities by name (every entity, or those among `names`), from
 * `offset`, at most `limit`, with their types and observations.
 */
export async function entityPage(
  db: KuzuDb,
  names: readonly string[] | undefined,
  offset: number,
  limit: number,
): Promise<EntityRow[]> {
  // The page is cut here, not by Kùzu: its ORDER BY with a large SKIP crashes the process.
  const page =
    (await (names === undefined
      ? db.run("MATCH (e:Entity) RETURN e.name AS name")
      : db.run("MATCH (e:Entity) WHERE e.name IN $names RETURN e.name AS name", {
        names: [...names],
      })))
      .map((row) => row.name as string)
      .sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
      .slice(offset, offset + limit);
  const rows = await db.run(
    `MATCH (e:Entity) WHERE e.name IN $page
     RETURN e.name AS name, e.entity_type AS type, e.observations AS o`,
    { page },
  );
  const order = new Map(page.map((name, i) => [name, i]));
  rows.sort((a, b) => order.get(a.name as string)! - order.get(b.name as string)!);
  return rows.map((row) => ({
    name: row.name as string,
    entityType: row.type as string,
    observations: (row.o as string[] | null) ?? [],
  }));
}

/** How many relations of type `relationType` go from `from` to `to` (0 or 1 as the projection merges them). */
export async function relationCount(db: KuzuDb, relation: RelationRow): Promise<number> {
  const rows = await db.run(
    `MATCH (a:Entity {name: $from})-[x:RELATES {relation_type: $type}]->(b:Entity {name: $to}) RETURN count(x) AS n`,
    { from: relation.from, to: relation.to, type: relation.relationType },
  );
  return Number(rows[0]?.n ?? 0);
}

/** How many relations start from each of the entities `names`, by name; none is left out. */
export async function outgoingRelationCounts(
  db: KuzuDb,
  names: readonly string[],
): Promise<Map<string, number>> {
  const rows = await db.run(
    `MATCH (a:Entity)-[r:RELATES]->(:Entity) WHERE a.name IN $names
     RETURN a.name AS name, count(r) AS n`,
    { names: [...names] },
  );
  return new Map(rows.map((row) => [row.name as string, Number(row.n)]));
}

/** Which relations of a set of entities: those starting from one, or those with either end among them. */
export type RelationEnds = "from" | "either";

/** The match of the relations of `$names`, for each {@linkcode RelationEnds}. */
const RELATIONS_OF: Record<RelationEnds, string> = {
  from: "MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE a.name IN $names",
  either: "MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE a.name IN $names OR b.name IN $names",
};

/**
 * The relations of the entities `names` (see {@linkcode RelationEnds}), by
 * source, type and target, at most `max`.
 */
export async function relationsOf(
  db: KuzuDb,
  names: readonly string[],
  ends: RelationEnds,
  max: number,
): Promise<RelationRow[]> {
  const rows = await db.run(
    `${RELATIONS_OF[ends]} RETURN a.name AS source, r.relation_type AS kind, b.name AS target
       ORDER BY source, kind, target LIMIT $max`,
    { names: [...names], max },
  );
  return rows.map((row) => ({
    from: row.source as string,
    to: row.target as string,
    relationType: row.kind as string,
  }));
}

/** How many relations the entities `names` have (see {@linkcode RelationEnds}). */
export async function relationCountOf(
  db: KuzuDb,
  names: readonly string[],
  ends: RelationEnds,
): Promise<number> {
  const [row] = await db.run(`${RELATIONS_OF[ends]} RETURN count(r) AS n`, { names: [...names] });
  return Number(row?.n ?? 0);
}
