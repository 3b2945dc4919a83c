/**
 * The graph's queries about memories: by id, by text, by external id, and
 * the ids a listing pages through.
 * @module
 */
import type { KuzuDb } from "../kuzu.ts";

/** A memory node as the queries return it: absent strings are "" (or null on an old node). */
export interface MemoryRow {
  id: string | null;
  project: string | null;
  kind: string | null;
  content: string | null;
  tags: string[] | null;
  source: string | null;
  external_id: string | null;
  created_at: string | null;
  updated_at: string | null;
  occurred_at: string | null;
  valid_from: string | null;
  valid_to: string | null;
  forgotten_at: string | null;
}

/** The projection of a memory node `m` into a {@linkcode MemoryRow}. */
const MEMORY_COLUMNS = `m.id AS id, m.project AS project, m.kind AS kind, m.content AS content,
  m.tags AS tags, m.source AS source, m.external_id AS external_id, m.created_at AS created_at,
  m.updated_at AS updated_at, m.occurred_at AS occurred_at, m.valid_from AS valid_from,
  m.valid_to AS valid_to, m.forgotten_at AS forgotten_at`;

/** The memory with id `id`, forgotten or not; undefined when there is none. */
export async function memoryById(db: KuzuDb, id: string): Promise<MemoryRow | undefined> {
  const rows = await db.run(`MATCH (m:Memory {id: $id}) RETURN ${MEMORY_COLUMNS}`, { id });
  return rows[0] as MemoryRow | undefined;
}

/** The memories among `ids`, in no particular order; unknown ids are skipped. */
export async function memoriesById(db: KuzuDb, ids: readonly string[]): Promise<MemoryRow[]> {
  const rows = await db.run(`MATCH (m:Memory) WHERE m.id IN $ids RETURN ${MEMORY_COLUMNS}`, {
    ids: [...ids],
  });
  return rows as unknown as MemoryRow[];
}

/**
 * A live memory of `project` ("" for global) whose text has the content key
 * `key` (see `contentKey`); undefined when there is none.
 */
export async function liveMemoryWithKey(
  db: KuzuDb,
  key: string,
  project: string,
): Promise<MemoryRow | undefined> {
  const rows = await db.run(
    `MATCH (m:Memory) WHERE m.content_key = $key AND m.project = $project AND m.forgotten_at = ""
     RETURN ${MEMORY_COLUMNS} LIMIT 1`,
    { key, project },
  );
  return rows[0] as MemoryRow | undefined;
}

/** The memories (forgotten ones too) imported with the external id `id`, in any project. */
export async function memoriesWithExternalId(db: KuzuDb, id: string): Promise<MemoryRow[]> {
  const rows = await db.run(`MATCH (m:Memory {external_id: $id}) RETURN ${MEMORY_COLUMNS}`, { id });
  return rows as unknown as MemoryRow[];
}

/** The memories (forgotten ones too) whose external id is among `ids`: project ("" for global) and external id. */
export async function heldExternalIds(
  db: KuzuDb,
  ids: readonly string[],
): Promise<Array<{ project: string; id: string }>> {
  const rows = await db.run(
    "MATCH (m:Memory) WHERE m.external_id IN $ids RETURN m.project AS project, m.external_id AS id",
    { ids: [...ids] },
  );
  return rows.map((row) => ({ project: row.project as string, id: row.id as string }));
}

/** Which memories a listing shows; an absent field does not filter. */
export interface MemoryFilter {
  /** The project's memories and the global ones. */
  project?: string | undefined;
  kind?: string | undefined;
  tag?: string | undefined;
  includeForgotten: boolean;
  /** Only memories valid at this moment (their valid-from/valid-to range). */
  validAt?: string | undefined;
}

/**
 * The ids of the memories `filter` picks, newest (last stored) first, from
 * `offset`, at most `limit` of them.
 */
export async function listedMemoryIds(
  db: KuzuDb,
  filter: MemoryFilter,
  offset: number,
  limit: number,
): Promise<string[]> {
  // The page is cut here, not by Kùzu: its ORDER BY with a large SKIP crashes the process.
  const matching = await db.run(
    `MATCH (m:Memory)
     WHERE ($project = "" OR m.project = $project OR m.project = "")
       AND ($kind = "" OR m.kind = $kind)
       AND ($tag = "" OR list_contains(m.tags, $tag))
       AND ($include_forgotten OR m.forgotten_at = "")
       AND ($valid_at = "" OR ((m.valid_from = "" OR m.valid_from <= $valid_at)
         AND (m.valid_to = "" OR m.valid_to >= $valid_at)))
     RETURN m.id AS id, m.seq AS seq`,
    {
      project: filter.project ?? "",
      kind: filter.kind ?? "",
      tag: filter.tag ?? "",
      include_forgotten: filter.includeForgotten,
      valid_at: filter.validAt ?? "",
    },
  );
  return matching
    .sort((a, b) => Number(b.seq) - Number(a.seq))
    .slice(offset, offset + limit)
    .map((row) => row.id as string);
}

/** The projects that hold live memories, by name. */
export async function memoryProjects(db: KuzuDb): Promise<string[]> {
  const rows = await db.run(
    `MATCH (m:Memory) WHERE m.forgotten_at = "" AND m.project <> ""
     RETURN DISTINCT m.project AS project`,
  );
  return rows.map((row) => row.project as string).sort();
}
