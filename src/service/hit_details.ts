import type { KuzuDb } from "../../projections/graph/kuzu.ts";
import type { TextProjection } from "../../projections/text.ts";
import { definitionLine, withoutScope } from "../recall/passage.ts";

/** A code hit with where it lives. */
export interface CodeRecord {
  id: string;
  project: string;
  path: string;
  name: string;
  kind: string;
  start_line: number;
  end_line: number;
  text: string;
  /**
   * When the chunk is a later part of a definition split in several (a long
   * function, the lines between a class's methods): the definition's first
   * line, from its first part.
   */
  signature?: string;
}

/** A session turn hit. */
export interface TurnRecord {
  id: string;
  session: string;
  line: number;
  project: string | null;
  started_at: string;
  text: string;
}

/** Looks up the chunks recall found: place from the graph, text from the lexical index. */
export async function codeRecords(
  db: KuzuDb,
  text: TextProjection,
  ids: readonly string[],
): Promise<Map<string, CodeRecord>> {
  if (ids.length === 0) return new Map();
  const rows = await db.run(
    `MATCH (c:Chunk) WHERE c.id IN $ids
     RETURN c.id AS id, c.project AS project, c.path AS path, c.name AS name, c.kind AS kind,
       c.start_line AS start_line, c.end_line AS end_line`,
    { ids: [...ids] },
  );
  const records = new Map(rows.map((row) => {
    const id = row.id as string;
    const project = row.project as string;
    return [id, {
      id,
      project,
      path: row.path as string,
      name: row.name as string,
      kind: row.kind as string,
      start_line: Number(row.start_line),
      end_line: Number(row.end_line),
      text: text.text(`chunk:${project}:${id}`) ?? "",
    } as CodeRecord];
  }));
  await addSignatures(db, text, [...records.values()]);
  return records;
}

/** A chunk of a file, as the file's outline and a continuation's signature need it. */
export interface FileChunk {
  id: string;
  project: string;
  path: string;
  name: string;
  kind: string;
  start_line: number;
  end_line: number;
}

/** Every chunk of the files `places` name (project and path), in one read. */
export async function fileChunks(
  db: KuzuDb,
  places: ReadonlyArray<{ project: string; path: string }>,
): Promise<FileChunk[]> {
  if (places.length === 0) return [];
  const wanted = new Set(places.map((place) => `${place.project}\0${place.path}`));
  const rows = await db.run(
    `MATCH (c:Chunk) WHERE c.path IN $paths
     RETURN c.id AS id, c.project AS project, c.path AS path, c.name AS name, c.kind AS kind,
       c.start_line AS start_line, c.end_line AS end_line`,
    { paths: [...new Set(places.map((place) => place.path))] },
  );
  return rows
    .filter((row) => wanted.has(`${row.project}\0${row.path}`))
    .map((row) => ({
      id: row.id as string,
      project: row.project as string,
      path: row.path as string,
      name: row.name as string,
      kind: row.kind as string,
      start_line: Number(row.start_line),
      end_line: Number(row.end_line),
    }));
}

/**
 * Gives each of `records` that is a later part of a definition its
 * signature: the line defining it in the first part of that name and kind (a
 * module's chunk may share a function's name), past the scope line the
 * chunker writes on top. The records' files are read once, together.
 */
async function addSignatures(
  db: KuzuDb,
  text: TextProjection,
  records: readonly CodeRecord[],
): Promise<void> {
  const named = records.filter((record) => record.name !== "");
  const chunks = await fileChunks(db, named);
  for (const record of named) {
    const first = chunks
      .filter((chunk) =>
        chunk.project === record.project && chunk.path === record.path &&
        chunk.name === record.name && chunk.kind === record.kind &&
        chunk.start_line < record.start_line
      )
      .sort((a, b) => a.start_line - b.start_line)[0];
    if (!first) continue;
    const signature = definitionLine(
      withoutScope(text.text(`chunk:${record.project}:${first.id}`) ?? ""),
      record.name,
    );
    if (signature !== undefined) record.signature = signature;
  }
}

/** Looks up the turns recall found: when and where from the graph, text from the lexical index. */
export async function turnRecords(
  db: KuzuDb,
  text: TextProjection,
  ids: readonly string[],
): Promise<Map<string, TurnRecord>> {
  if (ids.length === 0) return new Map();
  const rows = await db.run(
    `MATCH (t:Turn) WHERE t.key IN $ids
     RETURN t.key AS id, t.session AS session, t.line AS line, t.project AS project, t.started_at AS started_at`,
    { ids: [...ids] },
  );
  return new Map(rows.map((row) => {
    const id = row.id as string;
    return [id, {
      id,
      session: row.session as string,
      line: Number(row.line),
      project: (row.project as string) || null,
      started_at: row.started_at as string,
      text: text.text(`turn:${id}`) ?? "",
    }];
  }));
}
