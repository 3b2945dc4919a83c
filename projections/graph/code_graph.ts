import type { EventOf } from "../../events/schema.ts";
import { simpleName } from "../../text/code_mentions.ts";
import type { KuzuDb } from "./kuzu.ts";

/** The key of a file node: its project and path. */
export function fileKey(project: string, path: string): string {
  return `${project}\0${path}`;
}

/** The key of a symbol node: its project and its simple name (`register_hook`). */
export function symbolKey(project: string, name: string): string {
  return `${project}\0${simpleName(name)}`;
}

/** A code file's change as the graph applies it. */
export type FileEvent = EventOf<"file.indexed"> | EventOf<"file.removed">;

// A chunk's references travel as one string, a record per reference and a field per part
// (Kùzu cannot take an empty list as a parameter, and unwinding lists of structs cost more than
// the statement they replaced); the separators are control characters no name contains.
const RECORD = "\u001e";
const FIELD = "\u001f";

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
  // The files' old chunks went above, so every chunk is new: CREATE makes it in the pattern that
  // links it, and its references hang off it in the same statement. Kùzu finds the node of a
  // MERGE (or of a MATCH on a key from UNWIND) by comparing the key with the table's rows, which
  // took milliseconds a chunk at a million chunks; files and symbols, far fewer, are still MERGEd.
  // Edges are unique as MERGE would leave them (one CONTAINS and DEFINES a chunk; REFERS
  // deduplicated).
  const symbols = new Map<string, { key: string; project: string; name: string }>();
  const chunks = indexed.flatMap(({ key, data }) => {
    const refs = references(data);
    const defined = data.chunks.map((chunk) => symbolOf(data.project, chunk.name));
    for (const symbol of [...defined, ...[...refs.values()].flat()]) {
      symbols.set(symbol.key, { key: symbol.key, project: data.project, name: symbol.name });
    }
    return data.chunks.map((chunk, i) => ({
      file: key,
      id: chunk.id,
      project: data.project,
      path: data.path,
      name: chunk.name,
      kind: chunk.kind,
      start_line: chunk.start_line,
      end_line: chunk.end_line,
      symbol: defined[i]!.key,
      refs: (refs.get(chunk.id) ?? []).map((ref) => [ref.kind, ref.key, ref.name].join(FIELD))
        .join(RECORD),
    }));
  });
  if (chunks.length === 0) return;
  // Every symbol is made first, once: MERGEs that make nodes for repeated keys along one UNWIND
  // linked chunks to the wrong symbols (replaying sphinx's history: 194 of 15,302 DEFINES edges).
  await db.run(
    "UNWIND $symbols AS x MERGE (s:Symbol {key: x.key}) SET s.project = x.project, s.name = x.name",
    { symbols: [...symbols.values()] },
  );
  await db.run(
    `UNWIND $chunks AS ch
     MERGE (f:File {key: ch.file})
     MERGE (s:Symbol {key: ch.symbol})
     CREATE (f)-[:CONTAINS]->(c:Chunk {id: ch.id, project: ch.project, path: ch.path,
       name: ch.name, kind: ch.kind, start_line: ch.start_line, end_line: ch.end_line})
       -[:DEFINES]->(s)
     WITH c, ch UNWIND string_split(ch.refs, "${RECORD}") AS record
     WITH c, ch, record WHERE record <> ""
     WITH c, ch, string_split(record, "${FIELD}") AS r
     MERGE (t:Symbol {key: r[2]})
     CREATE (c)-[:REFERS {kind: r[1]}]->(t)`,
    { chunks },
  );
}

/** The symbol a name stands for: its key and simple name, without the separators. */
function symbolOf(project: string, name: string): { key: string; name: string } {
  const clean = (text: string) => text.replaceAll(RECORD, " ").replaceAll(FIELD, " ");
  return { key: clean(symbolKey(project, name)), name: clean(simpleName(name)) };
}

/**
 * A file's references by the chunk they are made in (the first one holding their line), once per
 * chunk, kind and symbol.
 */
function references(
  data: EventOf<"file.indexed">["data"],
): Map<string, Array<{ kind: string; key: string; name: string }>> {
  const refs = new Map<string, Map<string, { kind: string; key: string; name: string }>>();
  for (const ref of data.references) {
    const inside = data.chunks.find((c) => c.start_line <= ref.line && ref.line <= c.end_line);
    if (!inside) continue;
    const symbol = symbolOf(data.project, ref.name);
    const mine = refs.get(inside.id) ?? new Map();
    mine.set(`${ref.kind}\0${symbol.key}`, { kind: ref.kind, ...symbol });
    refs.set(inside.id, mine);
  }
  return new Map([...refs].map(([id, mine]) => [id, [...mine.values()]]));
}

/**
 * Sets each file's partners (the files changed most often with it, most
 * frequent first) to those of its project's latest history; a file the
 * history gives none has none. Keyed by file, whether or not the file is in
 * the graph: the walk finds its chunks through the file when they are.
 */
export async function applyProjectHistory(
  db: KuzuDb,
  data: EventOf<"project.history_read">["data"],
): Promise<void> {
  const { project, pairs } = data;
  await clearPartners(db, project);
  const partners = new Map<string, string[]>();
  for (const pair of pairs) {
    const key = fileKey(project, pair.file);
    partners.set(key, [...partners.get(key) ?? [], fileKey(project, pair.partner)]);
  }
  if (partners.size === 0) return;
  await db.run(
    `UNWIND $files AS x MERGE (p:FilePartners {key: x.key})
     SET p.project = $project, p.partners = x.partners`,
    { project, files: [...partners].map(([key, list]) => ({ key, partners: list })) },
  );
}

/** Forgets a project's partners (set to null, never deleted: see `schema.ts`). */
function clearPartners(db: KuzuDb, project: string): Promise<unknown> {
  return db.run("MATCH (p:FilePartners {project: $project}) SET p.partners = NULL", { project });
}

/** Takes every file of a project (and its chunks and symbols) out of the graph. */
export async function removeProject(db: KuzuDb, project: string): Promise<void> {
  await db.run("MATCH (c:Chunk {project: $project}) DETACH DELETE c", { project });
  await db.run("MATCH (f:File {project: $project}) DETACH DELETE f", { project });
  await db.run("MATCH (s:Symbol {project: $project}) DETACH DELETE s", { project });
  await clearPartners(db, project);
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
  // Files first, links after, in two statements: one UNWIND that MERGEs a file and then links it
  // links a file named again after another to the last file created (Kùzu 0.11.3), so
  // [Read a, Read b, Edit a] came out as Edit b.
  await db.run(
    `UNWIND $files AS m
     MERGE (f:File {key: m.key}) ON CREATE SET f.project = $project, f.path = m.path, f.language = ""`,
    { files, project: data.project },
  );
  await db.run(
    `UNWIND $files AS m
     MATCH (t:Turn {key: $key}), (f:File {key: m.key}) MERGE (t)-[:TOUCHED {tool: m.tool}]->(f)`,
    { files, key },
  );
}

/** Takes a retracted turn out of the graph. */
export async function removeTurn(db: KuzuDb, session: string, line: number): Promise<void> {
  await db.run("MATCH (t:Turn {key: $key}) DETACH DELETE t", { key: `${session}:${line}` });
}
