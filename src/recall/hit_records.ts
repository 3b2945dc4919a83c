import type { KuzuDb } from "../../projections/graph/kuzu.ts";
import { type ChunkRow, chunksById, chunksOfFiles } from "../../projections/graph/queries/code.ts";
import { turnsByKey } from "../../projections/graph/queries/sessions.ts";
import type { IndexedEntity, TextProjection } from "../../projections/text.ts";
import { definitionLine, withoutScope } from "./passage.ts";

/** A code hit with where it lives. */
export interface CodeRecord extends ChunkRow {
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
  const chunks = await chunksById(db, ids);
  const records = new Map(chunks.map((chunk): [string, CodeRecord] => [chunk.id, {
    ...chunk,
    text: text.text(`chunk:${chunk.project}:${chunk.id}`) ?? "",
  }]));
  await addSignatures(db, text, [...records.values()]);
  return records;
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
  const chunks = await chunksOfFiles(db, named);
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
  const turns = await turnsByKey(db, ids);
  return new Map(turns.map((turn) => [turn.id, {
    ...turn,
    project: turn.project || null,
    text: text.text(`turn:${turn.id}`) ?? "",
  }]));
}

/** A relation as answers write it: `from —type→ to`. */
export function relationArrow(from: string, type: string, to: string): string {
  return `${from} —${type}→ ${to}`;
}

/** An entity's facts, one a line: its observations, then its relations. */
export function entityText(entity: IndexedEntity): string {
  return [
    ...entity.observations,
    ...entity.relations.map(([from, type, to]) => relationArrow(from, type, to)),
  ].join("\n");
}
