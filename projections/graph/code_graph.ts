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

/**
 * Puts an indexed file into the graph: file ─contains→ chunk ─defines→ symbol,
 * and chunk ─refers→ symbol for the calls, imports and extends inside it. The
 * file's previous chunks go first, so re-indexing replaces them.
 */
export async function applyFileIndexed(
  db: KuzuDb,
  data: EventOf<"file.indexed">["data"],
): Promise<void> {
  const key = fileKey(data.project, data.path);
  await removeFileChunks(db, key);
  await db.run(
    `MERGE (f:File {key: $key}) SET f.project = $project, f.path = $path, f.language = $language`,
    { key, project: data.project, path: data.path, language: data.language },
  );
  const chunks = data.chunks.map((chunk) => ({
    id: chunk.id,
    name: chunk.name,
    kind: chunk.kind,
    start_line: chunk.start_line,
    end_line: chunk.end_line,
    symbol: symbolKey(data.project, chunk.name),
    simple: simpleName(chunk.name),
  }));
  if (chunks.length > 0) {
    await db.run(
      `UNWIND $chunks AS ch
       MERGE (c:Chunk {id: ch.id})
       SET c.project = $project, c.path = $path, c.name = ch.name, c.kind = ch.kind,
         c.start_line = ch.start_line, c.end_line = ch.end_line`,
      { chunks, project: data.project, path: data.path },
    );
    await db.run(
      `UNWIND $chunks AS ch MATCH (f:File {key: $key}), (c:Chunk {id: ch.id}) MERGE (f)-[:CONTAINS]->(c)`,
      { chunks, key },
    );
    await db.run(
      `UNWIND $chunks AS ch
       MERGE (s:Symbol {key: ch.symbol}) SET s.project = $project, s.name = ch.simple
       WITH ch, s MATCH (c:Chunk {id: ch.id}) MERGE (c)-[:DEFINES]->(s)`,
      { chunks, project: data.project },
    );
  }
  const refs = data.references.flatMap((ref) => {
    const inside = data.chunks.find((chunk) =>
      chunk.start_line <= ref.line && ref.line <= chunk.end_line
    );
    return inside
      ? [{
        chunk: inside.id,
        symbol: symbolKey(data.project, ref.name),
        name: simpleName(ref.name),
        kind: ref.kind,
      }]
      : [];
  });
  if (refs.length > 0) {
    await db.run(
      `UNWIND $refs AS r
       MERGE (s:Symbol {key: r.symbol}) SET s.project = $project, s.name = r.name
       WITH r, s MATCH (c:Chunk {id: r.chunk}) MERGE (c)-[:REFERS {kind: r.kind}]->(s)`,
      { refs, project: data.project },
    );
  }
}

/**
 * Takes a file's chunks out of the graph, and the file too unless a session
 * turn touched it: "why was this file changed?" outlives the file.
 */
export async function removeFile(db: KuzuDb, project: string, path: string): Promise<void> {
  const key = fileKey(project, path);
  await removeFileChunks(db, key);
  await db.run(
    "MATCH (f:File {key: $key}) WHERE NOT EXISTS { MATCH (f)<-[:TOUCHED]-(:Turn) } DETACH DELETE f",
    { key },
  );
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
    `CREATE (t:Turn {key: $key, session: $session, line: $line, project: $project, started_at: $started})`,
    {
      key,
      session: data.session,
      line: data.line,
      project: data.project ?? "",
      started: data.started_at,
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

async function removeFileChunks(db: KuzuDb, key: string): Promise<void> {
  await db.run("MATCH (f:File {key: $key})-[:CONTAINS]->(c:Chunk) DETACH DELETE c", { key });
}
