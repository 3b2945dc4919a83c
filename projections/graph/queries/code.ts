/**
 * The graph's queries about indexed code: chunks by id, the chunks of
 * files, the chunks holding a line, the chunks referring to a definition.
 * @module
 */
import type { KuzuDb, Row } from "../kuzu.ts";

/** A code chunk: where it lives and what it defines. */
export interface ChunkRow {
  id: string;
  project: string;
  path: string;
  name: string;
  kind: string;
  start_line: number;
  end_line: number;
}

const CHUNK_COLUMNS =
  `c.id AS id, c.project AS project, c.path AS path, c.name AS name, c.kind AS kind,
       c.start_line AS start_line, c.end_line AS end_line`;

/** The chunks among `ids`, in no particular order; unknown ids are skipped. */
export async function chunksById(db: KuzuDb, ids: readonly string[]): Promise<ChunkRow[]> {
  const rows = await db.run(
    `MATCH (c:Chunk) WHERE c.id IN $ids
     RETURN ${CHUNK_COLUMNS}`,
    { ids: [...ids] },
  );
  return rows.map(toChunk);
}

/** Every chunk of the files `places` name (project and path), in one read. */
export async function chunksOfFiles(
  db: KuzuDb,
  places: ReadonlyArray<{ project: string; path: string }>,
): Promise<ChunkRow[]> {
  if (places.length === 0) return [];
  const wanted = new Set(places.map((place) => `${place.project}\0${place.path}`));
  const rows = await db.run(
    `MATCH (c:Chunk) WHERE c.path IN $paths
     RETURN ${CHUNK_COLUMNS}`,
    { paths: [...new Set(places.map((place) => place.path))] },
  );
  return rows.filter((row) => wanted.has(`${row.project}\0${row.path}`)).map(toChunk);
}

/**
 * The chunks of a project's file that hold line `line`, each with its size
 * (end line minus start line), in no particular order.
 */
export async function chunksHoldingLine(
  db: KuzuDb,
  place: { project: string; path: string; line: number },
): Promise<Array<{ id: string; size: number }>> {
  const rows = await db.run(
    `MATCH (c:Chunk) WHERE c.project = $project AND c.path = $path
       AND c.start_line <= $line AND c.end_line >= $line
     RETURN c.id AS id, c.end_line - c.start_line AS size`,
    { project: place.project, path: place.path, line: place.line },
  );
  return rows.map((row) => ({ id: row.id as string, size: Number(row.size) }));
}

function toChunk(row: Row): ChunkRow {
  return {
    id: row.id as string,
    project: row.project as string,
    path: row.path as string,
    name: row.name as string,
    kind: row.kind as string,
    start_line: Number(row.start_line),
    end_line: Number(row.end_line),
  };
}

/** The keys of the files whose path holds `text`, at most `limit`. */
export async function fileKeysWithPath(db: KuzuDb, text: string, limit: number): Promise<string[]> {
  const rows = await db.run(
    `MATCH (f:File) WHERE f.path CONTAINS $text RETURN f.key AS key LIMIT ${Math.trunc(limit)}`,
    { text },
  );
  return rows.map((row) => row.key as string);
}

/** The keys of the symbols whose name holds `text`, at most `limit`. */
export async function symbolKeysNamed(db: KuzuDb, text: string, limit: number): Promise<string[]> {
  const rows = await db.run(
    `MATCH (s:Symbol) WHERE s.name CONTAINS $text RETURN s.key AS key LIMIT ${Math.trunc(limit)}`,
    { text },
  );
  return rows.map((row) => row.key as string);
}

/** A chunk that refers to (calls, imports, extends) what another chunk defines. */
export interface Reference {
  /** The chunk that defines the name. */
  definition: string;
  /** The chunk that refers to it. */
  id: string;
}

/**
 * The chunks that refer to a name one of the chunks `definitions` defines,
 * in the same project (a symbol is its project and simple name), the
 * definitions themselves left out: at most `limit` pairs, in order of the
 * referring chunk's id.
 */
export async function referencesTo(
  db: KuzuDb,
  definitions: readonly string[],
  limit: number,
): Promise<Reference[]> {
  if (definitions.length === 0) return [];
  const rows = await db.run(
    `MATCH (d:Chunk)-[:DEFINES]->(:Symbol)<-[:REFERS]-(c:Chunk)
     WHERE d.id IN $ids AND NOT c.id IN $ids
     RETURN DISTINCT d.id AS definition, c.id AS id ORDER BY id, definition LIMIT ${
      Math.trunc(limit)
    }`,
    { ids: [...definitions] },
  );
  return rows.map((row) => ({ definition: row.definition as string, id: row.id as string }));
}
