/**
 * `open HANDLE`: the whole of what a recall result points at, by the handle
 * its answer shows: a memory with its history, a turn with its neighbours
 * and the files it touched, a code chunk with its file's outline.
 * @module
 */
import { chunksHoldingLine, chunksOfFiles } from "../../projections/graph/queries/code.ts";
import {
  filesTouchedBy,
  neighbourTurn,
  turnKeysAt,
} from "../../projections/graph/queries/sessions.ts";
import type { Cairn } from "./cairn.ts";
import { ENTITY_PREFIX, entityHandle } from "../recall/handles.ts";
import { entitiesNamedLike } from "../../projections/graph/queries/entities.ts";
import type { GraphPage } from "./graph_ops.ts";
import { ArgumentsError, NotFoundError } from "../errors.ts";
import {
  type CodeRecord,
  codeRecords,
  type TurnRecord,
  turnRecords,
} from "../recall/hit_records.ts";
import type { MemoryRecord } from "../recall/memory_record.ts";
import { withoutScope } from "../recall/passage.ts";
import type { Contradiction } from "../recall/memory_record.ts";

/** One version of a memory, as an event of the log made it. */
export interface MemoryVersion {
  at: string;
  change: "remembered" | "revised" | "forgotten";
  /** The fields the event set (a revision's changes; the text when remembered). */
  fields: Record<string, unknown>;
}

/** A definition of a code file, as its outline lists it (its parts together). */
export interface OutlineEntry {
  /** Its first part's chunk, or the one opened when it is a part of this definition. */
  id: string;
  name: string;
  kind: string;
  start_line: number;
  end_line: number;
}

/** What a handle opens. */
export type Opened =
  | {
    type: "memory";
    memory: MemoryRecord;
    versions: MemoryVersion[];
    /** A memory stored later that may replace this one. */
    newer?: Contradiction;
  }
  | {
    type: "turn";
    turn: TurnRecord;
    before?: TurnRecord;
    after?: TurnRecord;
    files: Array<{ path: string; tool: string }>;
  }
  | {
    type: "code";
    code: CodeRecord;
    outline: OutlineEntry[];
    /**
     * The handle asked for, when no chunk has it any more (its file changed
     * since): `code` is then the chunk holding that handle's first line now.
     */
    gone?: { handle: string; line: number };
  }
  | { type: "entity"; page: GraphPage };

/** A turn's handle: its session (or the session's first characters) and its line. */
const TURN_HANDLE = /^([0-9A-Za-z][0-9A-Za-z_-]{3,}):(\d+)$/;

/**
 * Opens a handle: `mem_…` a memory, `SESSION:LINE` a turn (the session's
 * first characters are enough when no other session starts with them),
 * `PROJECT:PATH:START-END` a code chunk, the id a memory was imported with,
 * or an entity's name (`entity:NAME` whatever the name looks like).
 *
 * @throws {NotFoundError} when nothing has that handle
 * @throws {ArgumentsError} when a turn's short handle fits several sessions
 */
export async function openHandle(cairn: Cairn, handle: string): Promise<Opened> {
  if (handle.startsWith(ENTITY_PREFIX)) {
    const name = handle.slice(ENTITY_PREFIX.length);
    const entity = await openEntity(cairn, name);
    if (entity) return entity;
    throw new NotFoundError(`no entity named ${name}${await otherCase(cairn, name)}`);
  }
  try {
    if (handle.startsWith("mem_")) return await openMemory(cairn, handle);
    const turn = TURN_HANDLE.exec(handle);
    if (turn) return await openTurn(cairn, turn[1]!, Number(turn[2]));
    return await openCode(cairn, handle);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    // The id a memory was imported with opens it too, and an entity's name.
    const imported = handle.startsWith("mem_") ? undefined : await cairn.memories.get(handle);
    if (imported) return await openMemory(cairn, imported.id);
    const entity = await openEntity(cairn, handle);
    if (entity) return entity;
    throw new NotFoundError(`${error.message}${await otherCase(cairn, handle)}`);
  }
}

/** `; the entity Kafka differs in case` when an entity's name is `name` but for case. */
async function otherCase(cairn: Cairn, name: string): Promise<string> {
  const [like] = await entitiesNamedLike(cairn.graph.database, name);
  return like === undefined ? "" : `; the entity ${entityHandle(like)} differs in case`;
}

/** The entity named `name` with its relations; undefined when the graph has none. */
async function openEntity(cairn: Cairn, name: string): Promise<Opened | undefined> {
  const page = await cairn.entities.openNodes([name]);
  return page.entities.length === 0 ? undefined : { type: "entity", page };
}

async function openMemory(cairn: Cairn, id: string): Promise<Opened> {
  const memory = await cairn.memories.get(id);
  if (!memory) throw new NotFoundError(`no memory with id ${id}`);
  const newer = (await cairn.memories.newerContradictions([memory])).get(id);
  return {
    type: "memory",
    memory,
    versions: await versionsOf(cairn, id),
    ...(newer ? { newer } : {}),
  };
}

/** Every version of one memory, from the memory history. */
async function versionsOf(cairn: Cairn, id: string): Promise<MemoryVersion[]> {
  return (await cairn.memories.changes(id)).map(({ at, change, fields }) => ({
    at,
    change,
    fields: change === "remembered" ? { content: fields.content } : { ...fields },
  }));
}

async function openTurn(cairn: Cairn, session: string, line: number): Promise<Opened> {
  const db = cairn.graph.database;
  const keys = await turnKeysAt(db, session, line);
  if (keys.length === 0) throw new NotFoundError(`no session turn ${session}:${line}`);
  if (keys.length > 1) {
    throw new ArgumentsError(
      `${session}:${line} fits ${keys.length} turns (${
        keys.join(", ")
      }); give more of the session id`,
    );
  }
  const key = keys[0]!;
  const fullSession = key.slice(0, key.lastIndexOf(":"));
  const before = await neighbourTurn(db, fullSession, line, "before");
  const after = await neighbourTurn(db, fullSession, line, "after");
  const turns = await turnRecords(
    db,
    cairn.text,
    [key, before, after].filter((k): k is string => k !== undefined),
  );
  const files = await filesTouchedBy(db, key);
  return {
    type: "turn",
    turn: turns.get(key)!,
    ...(before && turns.has(before) ? { before: turns.get(before)! } : {}),
    ...(after && turns.has(after) ? { after: turns.get(after)! } : {}),
    files,
  };
}

async function openCode(cairn: Cairn, handle: string): Promise<Opened> {
  const db = cairn.graph.database;
  const { code, gone } = await chunkOrItsSuccessor(cairn, handle);
  if (!code) {
    throw new NotFoundError(
      `no memory, session turn, code chunk or entity has the handle ${handle} ` +
        "(handles look like mem_…, SESSION:LINE, PROJECT:PATH:START-END or an entity's name, as " +
        "recall shows them; PROJECT:PATH:LINE opens the chunk holding that line)",
    );
  }
  const rows = await chunksOfFiles(db, [code]);
  // The parts of one definition (a long function, the lines between a class's methods) are one entry.
  const parts = Map.groupBy(rows, (chunk) => `${chunk.kind}\0${chunk.name}`);
  const outline = [...parts.values()].map((chunks): OutlineEntry => {
    const first = chunks.reduce((a, b) => (b.start_line < a.start_line ? b : a));
    return {
      id: chunks.some((chunk) => chunk.id === code.id) ? code.id : first.id,
      name: first.name,
      kind: first.kind,
      start_line: first.start_line,
      end_line: Math.max(...chunks.map((chunk) => chunk.end_line)),
    };
  });
  const whole = parts.get(`${code.kind}\0${code.name}`) ?? [];
  return {
    type: "code",
    code: whole.length > 1 ? await wholeDefinition(cairn, code, whole) : code,
    outline: outline.sort((a, b) => a.start_line - b.start_line),
    ...(gone ? { gone } : {}),
  };
}

/**
 * The chunk with the handle, or, when none has it any more (its file was
 * edited since), the chunk holding the handle's first line now, with the
 * handle as `gone`. A chunk's handle outlives an edit of its file.
 */
async function chunkOrItsSuccessor(
  cairn: Cairn,
  handle: string,
): Promise<{ code?: CodeRecord; gone?: { handle: string; line: number } }> {
  const record = async (id: string | undefined) =>
    id === undefined
      ? undefined
      : (await codeRecords(cairn.graph.database, cairn.text, [id])).get(id);
  const code = await record(await chunkAt(cairn, handle));
  if (code) return { code };
  const range = /^(.+):(\d+)-\d+$/.exec(handle);
  if (!range) return {};
  const line = Number(range[2]);
  const successor = await record(await chunkAt(cairn, `${range[1]}:${line}`));
  return successor ? { code: successor, gone: { handle, line } } : {};
}

/**
 * The chunk `code`, a part of a definition cut in several, as the whole
 * definition when its `parts` follow one another (a long function); as it is
 * when lines of other entries lie between them (a class's methods).
 */
async function wholeDefinition(
  cairn: Cairn,
  code: CodeRecord,
  parts: ReadonlyArray<{ id: string; start_line: number; end_line: number }>,
): Promise<CodeRecord> {
  const ordered = [...parts].sort((a, b) => a.start_line - b.start_line);
  const follow = ordered.every((part, i) =>
    i === 0 || part.start_line <= ordered[i - 1]!.end_line + 1
  );
  if (!follow) return code;
  const records = await codeRecords(cairn.graph.database, cairn.text, ordered.map((p) => p.id));
  const lines: string[] = [];
  let next = ordered[0]!.start_line;
  for (const part of ordered) {
    const text = records.get(part.id)?.text;
    if (text === undefined) return code;
    // A later part starts with the chunker's scope line; lines two parts share are kept once.
    const body = (lines.length === 0 ? text : withoutScope(text)).split("\n");
    lines.push(...body.slice(Math.max(0, next - part.start_line)));
    next = part.end_line + 1;
  }
  const { signature: _, ...rest } = code;
  return {
    ...rest,
    text: lines.join("\n"),
    start_line: ordered[0]!.start_line,
    end_line: ordered.at(-1)!.end_line,
  };
}

/**
 * The chunk a code handle names: `PROJECT:PATH:START-END` as recall prints
 * it, or `PROJECT:PATH:LINE`, the smallest chunk holding that line.
 */
async function chunkAt(cairn: Cairn, handle: string): Promise<string | undefined> {
  const line = /^(.+):(\d+)$/.exec(handle);
  if (!line) return handle;
  const [place, number] = [line[1]!, Number(line[2])];
  const project = place.slice(0, place.indexOf(":"));
  const path = place.slice(place.indexOf(":") + 1);
  const chunks = await chunksHoldingLine(cairn.graph.database, { project, path, line: number });
  return chunks.sort((a, b) => a.size - b.size)[0]?.id;
}
