import type { EventOf } from "../../events/schema.ts";
import type { KuzuDb } from "./kuzu.ts";

/** The key of a file node: its project and path. */
export function fileKey(project: string, path: string): string {
  return `${project}\0${path}`;
}

/** The key of a symbol node: its project and its simple name (`register_hook`). */
export function symbolKey(project: string, name: string): string {
  return `${project}\0${simpleName(name)}`;
}

/** The last segment of a qualified name: `Request.register_hook` → `register_hook`. */
export function simpleName(name: string): string {
  return name.split(/[.:#]+/).filter(Boolean).at(-1) ?? name;
}

/** A code file's change as the graph applies it. */
export type FileEvent = EventOf<"file.indexed"> | EventOf<"file.removed">;

// A statement is prepared before its parameters are known: the lists unwound from a parameter's
// rows are cast to their type.
const CHUNK_ROW = "STRUCT(id STRING, name STRING, kind STRING, start_line INT64, end_line INT64, " +
  "symbol STRING, simple STRING)";
const REFERENCE_ROW = "STRUCT(chunk STRING, symbol STRING, name STRING, kind STRING)";

/**
 * Applies a run of file events with a handful of statements in all: each
 * file's previous chunks go, removed files go (unless a session turn touched
 * them: "why was this file changed?" outlives the file), and indexed files
 * come back as file ─contains→ chunk ─defines→ symbol, with chunk ─refers→
 * symbol for the calls, imports and extends inside them. When a file occurs
 * more than once in the run, its last event stands, as if applied in order.
 */
export async function applyFileEvents(db: KuzuDb, events: readonly FileEvent[]): Promise<void> {
  const last = new Map<string, FileEvent>();
  for (const event of events) {
    const key = fileKey(event.data.project, event.data.path);
    last.delete(key);
    last.set(key, event);
  }
  await db.run(
    "UNWIND $keys AS k MATCH (f:File {key: k})-[:CONTAINS]->(c:Chunk) DETACH DELETE c",
    { keys: [...last.keys()] },
  );
  const removed = [...last].filter(([, event]) => event.type === "file.removed");
  if (removed.length > 0) {
    await db.run(
      `UNWIND $keys AS k MATCH (f:File {key: k})
       WHERE NOT EXISTS { MATCH (f)<-[:TOUCHED]-(:Turn) } DETACH DELETE f`,
      { keys: removed.map(([key]) => key) },
    );
  }
  const indexed = [...last].flatMap(([key, event]) =>
    event.type === "file.indexed" ? [{ key, data: event.data }] : []
  );
  if (indexed.length === 0) return;
  await db.run(
    `UNWIND $files AS x MERGE (f:File {key: x.key})
     SET f.project = x.project, f.path = x.path, f.language = x.language`,
    {
      files: indexed.map(({ key, data }) => ({
        key,
        project: data.project,
        path: data.path,
        language: data.language,
      })),
    },
  );
  // The files' old chunks went above, so every chunk is new: CREATE makes it where it is used,
  // with its edges. Kùzu finds a node for MERGE (or a MATCH on a key from UNWIND) by comparing the
  // key with every node of the table, milliseconds each at a million chunks: files are looked up
  // once each, their chunks and references unwound from them (only lists that are not empty:
  // Kùzu cannot type an empty one), and a reference finds its chunk among its file's. Edges are
  // unique as MERGE would leave them (one CONTAINS and DEFINES a chunk; REFERS deduplicated).
  const withChunks = indexed.filter(({ data }) => data.chunks.length > 0);
  if (withChunks.length > 0) {
    await db.run(
      `UNWIND $files AS x MERGE (f:File {key: x.key})
       WITH f, x UNWIND CAST(x.chunks AS ${CHUNK_ROW}[]) AS ch
       MERGE (s:Symbol {key: ch.symbol}) SET s.project = x.project, s.name = ch.simple
       CREATE (f)-[:CONTAINS]->(c:Chunk {id: ch.id, project: x.project, path: x.path,
         name: ch.name, kind: ch.kind, start_line: ch.start_line, end_line: ch.end_line})
         -[:DEFINES]->(s)`,
      {
        files: withChunks.map(({ key, data }) => ({
          key,
          project: data.project,
          path: data.path,
          chunks: data.chunks.map((chunk) => ({
            id: chunk.id,
            name: chunk.name,
            kind: chunk.kind,
            start_line: chunk.start_line,
            end_line: chunk.end_line,
            symbol: symbolKey(data.project, chunk.name),
            simple: simpleName(chunk.name),
          })),
        })),
      },
    );
  }
  const withRefs = indexed
    .map(({ key, data }) => ({ key, project: data.project, refs: references(data) }))
    .filter((file) => file.refs.length > 0);
  if (withRefs.length > 0) {
    await db.run(
      `UNWIND $files AS x MERGE (f:File {key: x.key})
       WITH f, x UNWIND CAST(x.refs AS ${REFERENCE_ROW}[]) AS r
       MATCH (f)-[:CONTAINS]->(c:Chunk) WHERE c.id = r.chunk
       MERGE (t:Symbol {key: r.symbol}) SET t.project = x.project, t.name = r.name
       CREATE (c)-[:REFERS {kind: r.kind}]->(t)`,
      { files: withRefs },
    );
  }
}

/**
 * A file's references, each with the chunk it is made in (the first one holding its line), once
 * per chunk, kind and symbol.
 */
function references(data: EventOf<"file.indexed">["data"]) {
  const refs = new Map<string, Record<string, string>>();
  for (const ref of data.references) {
    const inside = data.chunks.find((c) => c.start_line <= ref.line && ref.line <= c.end_line);
    if (!inside) continue;
    const symbol = symbolKey(data.project, ref.name);
    refs.set(`${inside.id}\0${ref.kind}\0${symbol}`, {
      chunk: inside.id,
      symbol,
      name: simpleName(ref.name),
      kind: ref.kind,
    });
  }
  return [...refs.values()];
}

/** Takes every file of a project (and its chunks and symbols) out of the graph. */
export async function removeProject(db: KuzuDb, project: string): Promise<void> {
  await db.run("MATCH (c:Chunk {project: $project}) DETACH DELETE c", { project });
  await db.run("MATCH (f:File {project: $project}) DETACH DELETE f", { project });
  await db.run("MATCH (s:Symbol {project: $project}) DETACH DELETE s", { project });
}

/** Puts a session turn into the graph, linked to the files it touched. */
export async function applyTurnIngested(
  db: KuzuDb,
  data: EventOf<"turn.ingested">["data"],
): Promise<void> {
  const key = `${data.session}:${data.line}`;
  await db.run("MATCH (t:Turn {key: $key}) DETACH DELETE t", { key });
  await db.run(
    `CREATE (t:Turn {key: $key, session: $session, line: $line, project: $project,
       started_at: $started, compacted: $compacted})`,
    {
      key,
      session: data.session,
      line: data.line,
      project: data.project ?? "",
      started: data.started_at,
      // The turn's last compact boundary, -1 for none: all recall needs to know what left the context.
      compacted: Math.max(-1, ...data.compactions ?? []),
    },
  );
  if (!data.project || data.mentions.length === 0) return;
  const files = data.mentions.map((mention) => ({
    key: fileKey(data.project!, mention.path),
    path: mention.path,
    tool: mention.tool,
  }));
  await db.run(
    `UNWIND $files AS m
     MERGE (f:File {key: m.key}) ON CREATE SET f.project = $project, f.path = m.path, f.language = ""
     WITH m, f MATCH (t:Turn {key: $key}) MERGE (t)-[:TOUCHED {tool: m.tool}]->(f)`,
    { files, project: data.project, key },
  );
}

/** Takes a retracted turn out of the graph. */
export async function removeTurn(db: KuzuDb, session: string, line: number): Promise<void> {
  await db.run("MATCH (t:Turn {key: $key}) DETACH DELETE t", { key: `${session}:${line}` });
}
