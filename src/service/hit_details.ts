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
  for (const record of records.values()) {
    const signature = await firstLineOfDefinition(db, text, record);
    if (signature !== undefined) record.signature = signature;
  }
  return records;
}

/**
 * The first line of the definition `record` is a later part of (the first
 * line of the first part of that name and kind: a module's chunk may share
 * a function's name), past the scope line the chunker writes on top, or
 * undefined when `record` is the first part.
 */
async function firstLineOfDefinition(
  db: KuzuDb,
  text: TextProjection,
  record: CodeRecord,
): Promise<string | undefined> {
  if (record.name === "") return undefined;
  const [first] = await db.run(
    `MATCH (c:Chunk) WHERE c.project = $project AND c.path = $path AND c.name = $name
       AND c.kind = $kind AND c.start_line < $start
     RETURN c.id AS id ORDER BY c.start_line LIMIT 1`,
    {
      project: record.project,
      path: record.path,
      name: record.name,
      kind: record.kind,
      start: record.start_line,
    },
  );
  if (!first) return undefined;
  return definitionLine(
    withoutScope(text.text(`chunk:${record.project}:${first.id as string}`) ?? ""),
    record.name,
  );
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
