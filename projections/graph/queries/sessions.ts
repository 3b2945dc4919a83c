/**
 * The graph's queries about agent sessions: turns by key or by handle, a
 * turn's neighbours, the files turns touched and the turns that touched files.
 * @module
 */
import type { KuzuDb } from "../kuzu.ts";

/** A session turn: where and when it happened. */
export interface TurnRow {
  /** `<session>:<line>`. */
  id: string;
  session: string;
  line: number;
  /** "" when the turn belongs to no project. */
  project: string;
  started_at: string;
}

/** The turns among `keys`, in no particular order; unknown keys are skipped. */
export async function turnsByKey(db: KuzuDb, keys: readonly string[]): Promise<TurnRow[]> {
  const rows = await db.run(
    `MATCH (t:Turn) WHERE t.key IN $ids
     RETURN t.key AS id, t.session AS session, t.line AS line, t.project AS project, t.started_at AS started_at`,
    { ids: [...keys] },
  );
  return rows.map((row) => ({
    id: row.id as string,
    session: row.session as string,
    line: Number(row.line),
    project: row.project as string,
    started_at: row.started_at as string,
  }));
}

/** The keys of the turns at `line` of every session whose id starts with `session`. */
export async function turnKeysAt(db: KuzuDb, session: string, line: number): Promise<string[]> {
  const rows = await db.run(
    "MATCH (t:Turn) WHERE t.session STARTS WITH $session AND t.line = $line RETURN t.key AS key",
    { session, line },
  );
  return rows.map((row) => row.key as string);
}

/** The key of the turn of `session` just before (or after) `line`; undefined at either end. */
export async function neighbourTurn(
  db: KuzuDb,
  session: string,
  line: number,
  order: "before" | "after",
): Promise<string | undefined> {
  const [row] = await db.run(
    order === "before"
      ? "MATCH (t:Turn {session: $session}) WHERE t.line < $line RETURN t.key AS key ORDER BY t.line DESC LIMIT 1"
      : "MATCH (t:Turn {session: $session}) WHERE t.line > $line RETURN t.key AS key ORDER BY t.line LIMIT 1",
    { session, line },
  );
  return row?.key as string | undefined;
}

/** The files the turn `key` touched, with the tool, once per pair, by path. */
export async function filesTouchedBy(
  db: KuzuDb,
  key: string,
): Promise<Array<{ path: string; tool: string }>> {
  const rows = await db.run(
    "MATCH (t:Turn {key: $key})-[r:TOUCHED]->(f:File) RETURN DISTINCT f.path AS path, r.tool AS tool ORDER BY path",
    { key },
  );
  return rows.map((row) => ({ path: row.path as string, tool: row.tool as string }));
}

/** The last compact boundary among a session's turns; undefined when it has none or no turns. */
export async function compactBoundary(db: KuzuDb, session: string): Promise<number | undefined> {
  const [row] = await db.run(
    "MATCH (t:Turn {session: $session}) RETURN max(t.compacted) AS boundary",
    { session },
  );
  return row?.boundary == null ? undefined : Number(row.boundary);
}

/** Up to `limit` ids of sessions with a turn in the graph that start with `prefix`. */
export async function sessionsStartingWith(
  db: KuzuDb,
  prefix: string,
  limit: number,
): Promise<string[]> {
  const rows = await db.run(
    "MATCH (t:Turn) WHERE starts_with(t.session, $prefix) RETURN DISTINCT t.session AS session " +
      "ORDER BY session LIMIT $limit",
    { prefix, limit },
  );
  return rows.map((row) => row.session as string);
}

/** How many sessions have a turn in the graph. */
export async function sessionCount(db: KuzuDb): Promise<number> {
  const [row] = await db.run("MATCH (t:Turn) RETURN count(DISTINCT t.session) AS sessions");
  return Number(row?.sessions ?? 0);
}

/** A turn that touched a file, as a file's history lists it. */
export interface FileTouch {
  /** The turn's key. */
  id: string;
  /** The file as the project knows it. */
  path: string;
  /** The tools that touched it in that turn, each once, in no particular order. */
  tools: string[];
  started: string;
}

/**
 * The turns that touched a file, newest first, at most `limit`: `path` is the
 * file's project path, an absolute path ending with it, or its end (a bare
 * name). `project` "" looks in every project.
 */
export async function turnsTouchingFile(
  db: KuzuDb,
  { path, project, limit }: { path: string; project: string; limit: number },
): Promise<FileTouch[]> {
  const rows = await db.run(
    `MATCH (t:Turn)-[r:TOUCHED]->(f:File)
     WHERE ($project = '' OR f.project = $project)
       AND (f.path = $path OR ends_with($path, '/' + f.path) OR ends_with(f.path, '/' + $path))
     RETURN t.key AS id, f.path AS path, collect(DISTINCT r.tool) AS tools,
       t.started_at AS started
     ORDER BY started DESC, id
     LIMIT $limit`,
    { project, path, limit },
  );
  return rows.map((row) => ({
    id: row.id as string,
    path: row.path as string,
    tools: row.tools as string[],
    started: row.started as string,
  }));
}

/** A turn whose files match a query's file hints. */
export interface HintMatch {
  /** The turn's key. */
  id: string;
  /** How many of the hints its files matched. */
  hints: number;
  /** How many of its files matched a hint. */
  files: number;
}

/**
 * The turns that touched files matching `hints` (lower-cased), ranked by how
 * many hints they match, then how many of their files match, then newest
 * first, at most `limit`. A hint matches a file when it is the file's project
 * path, its end (`ingest.rs`, `transcripts/ingest.rs`), an absolute path
 * ending with it, or a folder holding it (`src/ingest`, or `ingest` anywhere
 * in the path). `project` "" looks in every project.
 */
export async function turnsTouchingHints(
  db: KuzuDb,
  { hints, project, limit }: { hints: readonly string[]; project: string; limit: number },
): Promise<HintMatch[]> {
  // Not asked at all: Kùzu cannot infer the type of an empty list (see KuzuDb.run).
  if (hints.length === 0) return [];
  const rows = await db.run(
    `UNWIND $hints AS h
     MATCH (t:Turn)-[:TOUCHED]->(f:File)
     WHERE ($project = '' OR f.project = $project)
       AND (lower(f.path) = h OR ends_with(lower(f.path), '/' + h)
         OR ends_with(h, '/' + lower(f.path))
         OR starts_with(lower(f.path), h + '/') OR contains(lower(f.path), '/' + h + '/'))
     RETURN t.key AS id, t.started_at AS started, size(collect(DISTINCT h)) AS hints,
       count(DISTINCT f.key) AS files
     ORDER BY hints DESC, files DESC, started DESC, id
     LIMIT $limit`,
    { hints: [...hints], project, limit },
  );
  return rows.map((row) => ({
    id: row.id as string,
    hints: Number(row.hints),
    files: Number(row.files),
  }));
}

/** A session as a list of sessions shows it: its project, first and last turn, and size. */
export interface SessionSummary {
  session: string;
  /** "" when its turns belong to no project. */
  project: string;
  first: string;
  last: string;
  turns: number;
}

/**
 * The sessions of `project` ("" for every project), the most recently active
 * first, `limit` from `offset`.
 */
export async function sessionsByRecency(
  db: KuzuDb,
  project: string,
  offset: number,
  limit: number,
): Promise<SessionSummary[]> {
  const rows = await db.run(
    `MATCH (t:Turn) WHERE $project = '' OR t.project = $project
     RETURN t.session AS session, min(t.project) AS project, min(t.started_at) AS first,
            max(t.started_at) AS last, count(t) AS turns
     ORDER BY last DESC SKIP ${Math.trunc(offset)} LIMIT ${Math.trunc(limit)}`,
    { project },
  );
  return rows.map((row) => ({
    session: row.session as string,
    project: row.project as string,
    first: row.first as string,
    last: row.last as string,
    turns: Number(row.turns),
  }));
}

/** A turn of a session with the files it touched. */
export interface SessionTurn {
  id: string;
  line: number;
  started_at: string;
  files: string[];
}

/** The first `limit` turns of `session` in order, each with the files it touched. */
export async function turnsOfSession(
  db: KuzuDb,
  session: string,
  limit: number,
): Promise<SessionTurn[]> {
  const rows = await db.run(
    `MATCH (t:Turn {session: $session}) OPTIONAL MATCH (t)-[:TOUCHED]->(f:File)
     RETURN t.key AS id, t.line AS line, t.started_at AS started_at, collect(f.path) AS files
     ORDER BY line LIMIT ${Math.trunc(limit)}`,
    { session },
  );
  return rows.map((row) => ({
    id: row.id as string,
    line: Number(row.line),
    started_at: row.started_at as string,
    files: row.files as string[],
  }));
}
