import { join } from "node:path";
import { sha256Hex } from "../../events/blobs.ts";
import type { EventOf, StoredEvent } from "../../events/schema.ts";
import type { Projection } from "../projection.ts";
import {
  applyFileEvents,
  applyProjectHistory,
  applyTurnIngested,
  type FileEvent,
  fileKey,
  removeProject,
  removeTurn,
} from "./code_graph.ts";
import { KuzuDb } from "./kuzu.ts";
import { linkCodeMentions } from "./code_mentions.ts";
import { linkEarlierMentions, linkIndexedCode } from "./late_mentions.ts";
import { CodeMentionIndex } from "./mention_index.ts";
import { NameMatcher } from "./name_matcher.ts";
import { createSchema } from "./schema.ts";

/** Every node and edge, each in a fixed order, for {@linkcode GraphProjection.digest}. */
const DIGEST_QUERIES = {
  memories: `MATCH (m:Memory)
    RETURN m.id, m.project, m.kind, m.content, m.tags, m.source, m.external_id, m.created_at,
      m.updated_at, m.occurred_at, m.valid_from, m.valid_to, m.forgotten_at
    ORDER BY m.id`,
  entities:
    "MATCH (e:Entity) RETURN e.name, e.entity_type, e.project, e.observations ORDER BY e.name",
  files: "MATCH (f:File) RETURN f.key, f.language ORDER BY f.key",
  partners:
    "MATCH (p:FilePartners) WHERE p.partners IS NOT NULL RETURN p.key, p.partners ORDER BY p.key",
  chunks:
    "MATCH (c:Chunk) RETURN c.id, c.project, c.path, c.name, c.kind, c.start_line, c.end_line ORDER BY c.id",
  symbols: "MATCH (s:Symbol) RETURN s.key ORDER BY s.key",
  turns: "MATCH (t:Turn) RETURN t.key, t.project, t.started_at, t.compacted ORDER BY t.key",
  mentions: `MATCH (m:Memory)-[:MENTIONS]->(x)
    RETURN m.id AS memory, coalesce(x.name, x.key) AS target ORDER BY memory, target`,
  relations: `MATCH (a:Entity)-[r:RELATES]->(b:Entity)
    RETURN a.name, r.relation_type, b.name ORDER BY a.name, r.relation_type, b.name`,
  contains:
    "MATCH (f:File)-[:CONTAINS]->(c:Chunk) RETURN f.key AS file, c.id AS chunk ORDER BY file, chunk",
  defines:
    "MATCH (c:Chunk)-[:DEFINES]->(s:Symbol) RETURN c.id AS chunk, s.key AS symbol ORDER BY chunk, symbol",
  refers:
    "MATCH (c:Chunk)-[r:REFERS]->(s:Symbol) RETURN c.id AS chunk, r.kind AS kind, s.key AS symbol ORDER BY chunk, kind, symbol",
  touched:
    "MATCH (t:Turn)-[r:TOUCHED]->(f:File) RETURN t.key AS turn, r.tool AS tool, f.key AS file ORDER BY turn, tool, file",
};

/**
 * The knowledge graph in Kùzu: memories, entities with observations, typed
 * relations, and the edges from memories to the entities they name.
 */
export class GraphProjection implements Projection {
  readonly name = "graph";
  readonly version = 7;
  #names = new NameMatcher();
  /** What each memory names in code; loaded when code is first indexed in this process. */
  #mentions: CodeMentionIndex | undefined;

  private constructor(private readonly path: string, private db: KuzuDb) {}

  /** Opens the graph database kept in `dir`. */
  static async open(dir: string): Promise<GraphProjection> {
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, "graph.kuzu");
    const db = await KuzuDb.open(path);
    await createSchema(db);
    const projection = new GraphProjection(path, db);
    await projection.#loadNames();
    return projection;
  }

  async #loadNames(): Promise<void> {
    for (const row of await this.db.run("MATCH (e:Entity) RETURN e.name AS name")) {
      this.#names.add(row.name as string);
    }
  }

  /**
   * Puts the database built at `source` (a replay of the log into a fresh
   * database) in place of this one, under the same handle, and reloads what
   * this projection keeps in memory about it.
   */
  async replaceWith(source: string): Promise<void> {
    await this.db.replaceWith(source);
    this.#names.clear();
    this.#mentions = undefined;
    await this.#loadNames();
  }

  /** The open database, for queries. */
  get database(): KuzuDb {
    return this.db;
  }

  async count(): Promise<number> {
    const [row] = await this.db.run("MATCH (n) RETURN count(n) AS nodes");
    return Number(row?.nodes ?? 0);
  }

  async apply(batch: readonly StoredEvent[]): Promise<void> {
    for (const part of transactions(batch)) {
      await this.db.transaction(async () => {
        for (const item of part) {
          if (Array.isArray(item)) await this.#applyFiles(item);
          else await this.#apply(item as StoredEvent);
        }
      });
    }
  }

  async reset(): Promise<void> {
    await this.db.close();
    for (const suffix of ["", ".wal", ".shadow", ".tmp"]) {
      await Deno.remove(this.path + suffix, { recursive: true }).catch(() => {});
    }
    this.db = await KuzuDb.open(this.path);
    await createSchema(this.db);
    this.#names.clear();
    this.#mentions = undefined;
  }

  async digest(): Promise<string> {
    const parts: Record<string, unknown> = {};
    for (const [name, query] of Object.entries(DIGEST_QUERIES)) {
      parts[name] = await this.db.run(query);
    }
    return await sha256Hex(JSON.stringify(parts));
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  async #apply(event: StoredEvent): Promise<void> {
    switch (event.type) {
      case "memory.remembered":
        return await this.#remembered(event);
      case "memory.revised":
        return await this.#revised(event);
      case "memory.forgotten":
        await this.db.run("MATCH (m:Memory {id: $id}) SET m.forgotten_at = $ts", {
          id: event.data.id,
          ts: event.ts,
        });
        return;
      case "memory.purged":
        await this.db.run("MATCH (m:Memory {id: $id}) DETACH DELETE m", { id: event.data.id });
        this.#mentions?.delete(event.data.id);
        return;
      case "entity.created":
        await this.#ensureEntity(event.data.name, event.data.entity_type, event.data.project ?? "");
        return await this.#changeObservations(event.data.name, event.data.observations, []);
      case "entity.deleted":
        await this.db.run("MATCH (e:Entity {name: $name}) DETACH DELETE e", {
          name: event.data.name,
        });
        this.#names.delete(event.data.name);
        return;
      case "observations.added":
        return await this.#changeObservations(event.data.entity, event.data.observations, []);
      case "observations.deleted":
        return await this.#changeObservations(event.data.entity, [], event.data.observations);
      case "relation.created":
        return await this.#relate(event.data.from, event.data.to, event.data.relation_type);
      case "project.deleted":
        return await removeProject(this.db, event.data.project);
      case "project.history_read":
        return await applyProjectHistory(this.db, event.data);
      case "turn.ingested":
        return await applyTurnIngested(this.db, event.data);
      case "turn.retracted":
        return await removeTurn(this.db, event.data.session, event.data.line);
      case "relation.deleted":
        await this.db.run(
          `MATCH (a:Entity {name: $from})-[r:RELATES {relation_type: $type}]->(b:Entity {name: $to})
           DELETE r`,
          { from: event.data.from, to: event.data.to, type: event.data.relation_type },
        );
        return;
    }
  }

  async #remembered(event: EventOf<"memory.remembered"> & StoredEvent): Promise<void> {
    const { data } = event;
    await this.db.run(
      `MERGE (m:Memory {id: $id})
       SET m.project = $project, m.kind = $kind, m.content = $content, m.tags = $tags,
         m.source = $source, m.external_id = $external_id, m.created_at = $ts, m.updated_at = $ts,
         m.occurred_at = $occurred_at, m.valid_from = $valid_from, m.valid_to = $valid_to,
         m.forgotten_at = "", m.seq = $seq, m.content_key = $content_key`,
      {
        id: data.id,
        project: data.project ?? "",
        kind: data.kind,
        content: data.content,
        tags: data.tags,
        source: data.source ?? "",
        external_id: data.external_id ?? "",
        ts: event.ts,
        occurred_at: data.occurred_at ?? "",
        valid_from: data.valid_from ?? "",
        valid_to: data.valid_to ?? "",
        seq: event.seq,
        content_key: await contentKey(data.content),
      },
    );
    for (const name of data.entities ?? []) {
      await this.#ensureEntity(name, "concept", data.project ?? "");
    }
    for (const relation of data.relations ?? []) {
      await this.#relate(relation.from, relation.to, relation.relation_type);
    }
    await this.#linkMentions(data.id, data.content, data.entities ?? [], data.project ?? "");
    this.#mentions?.set(data.id, data.project ?? "", data.content);
  }

  async #revised(event: EventOf<"memory.revised"> & StoredEvent): Promise<void> {
    const { data } = event;
    const current = await this.db.run("MATCH (m:Memory {id: $id}) RETURN m.id", { id: data.id });
    if (current.length === 0) return;
    const fields: Record<string, string | string[]> = { updated_at: event.ts };
    if (data.content !== undefined) {
      fields.content = data.content;
      fields.content_key = await contentKey(data.content);
    }
    if (data.kind !== undefined) fields.kind = data.kind;
    if (data.tags !== undefined) fields.tags = data.tags;
    if (data.valid_from !== undefined) fields.valid_from = data.valid_from;
    if (data.valid_to !== undefined) fields.valid_to = data.valid_to;
    const assignments = Object.keys(fields).map((key) => `m.${key} = $${key}`).join(", ");
    await this.db.run(`MATCH (m:Memory {id: $id}) SET ${assignments}`, { id: data.id, ...fields });
    if (data.content !== undefined) {
      await this.db.run("MATCH (m:Memory {id: $id})-[r:MENTIONS]->() DELETE r", {
        id: data.id,
      });
      const [row] = await this.db.run("MATCH (m:Memory {id: $id}) RETURN m.project AS project", {
        id: data.id,
      });
      const project = (row?.project as string | undefined) ?? "";
      await this.#linkMentions(data.id, data.content, [], project);
      this.#mentions?.set(data.id, project, data.content);
    }
  }

  async #ensureEntity(name: string, type: string, project: string): Promise<void> {
    const known = this.#names.has(name);
    await this.db.run(
      `MERGE (e:Entity {name: $name})
       ON CREATE SET e.entity_type = $type, e.project = $project, e.observations = CAST([] AS STRING[])
       ON MATCH SET e.entity_type = CASE WHEN $type = "concept" THEN e.entity_type ELSE $type END`,
      { name, type, project },
    );
    this.#names.add(name);
    if (!known) await linkEarlierMentions(this.db, name);
  }

  /** Applies a run of file events, then links the memories that named that code before. */
  async #applyFiles(events: readonly FileEvent[]): Promise<void> {
    if (events.length === 0) return;
    await applyFileEvents(this.db, events);
    await linkIndexedCode(this.db, await this.#mentionIndex(), events);
  }

  async #mentionIndex(): Promise<CodeMentionIndex> {
    if (this.#mentions) return this.#mentions;
    const index = new CodeMentionIndex();
    const rows = await this.db.run(
      "MATCH (m:Memory) RETURN m.id AS id, m.project AS project, m.content AS content",
    );
    for (const row of rows) {
      index.set(row.id as string, row.project as string, row.content as string);
    }
    return this.#mentions = index;
  }

  async #changeObservations(name: string, add: string[], remove: string[]): Promise<void> {
    const rows = await this.db.run("MATCH (e:Entity {name: $name}) RETURN e.observations AS o", {
      name,
    });
    if (rows.length === 0) return;
    const current = (rows[0]!.o as string[] | null) ?? [];
    const next = [...new Set([...current, ...add])].filter((o) => !remove.includes(o));
    await this.db.run("MATCH (e:Entity {name: $name}) SET e.observations = $next", { name, next });
  }

  async #relate(from: string, to: string, type: string): Promise<void> {
    await this.#ensureEntity(from, "concept", "");
    await this.#ensureEntity(to, "concept", "");
    await this.db.run(
      `MATCH (a:Entity {name: $from}), (b:Entity {name: $to})
       MERGE (a)-[:RELATES {relation_type: $type}]->(b)`,
      { from, to, type },
    );
  }

  async #linkMentions(
    id: string,
    content: string,
    explicit: string[],
    project: string,
  ): Promise<void> {
    await linkCodeMentions(this.db, id, content, project);
    const names = new Set([...explicit, ...this.#names.match(content)]);
    for (const name of names) {
      await this.db.run(
        `MATCH (m:Memory {id: $id}), (e:Entity {name: $name}) MERGE (m)-[:MENTIONS]->(e)`,
        { id, name },
      );
    }
  }
}

/** The key under which two memories count as the same text: sha256 of the case- and space-folded content. */
export function contentKey(content: string): Promise<string> {
  return sha256Hex(content.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim());
}

/**
 * Cuts a batch into transactions of events and runs of consecutive file events (a run goes to the
 * graph in a few statements, not per file). A file that an earlier run of the same transaction
 * wrote starts a new transaction: replacing a file's chunks finds them through its edges, and Kùzu
 * does not always find edges made earlier in the transaction (seen replaying sphinx's history in
 * batches of 512 events: a chunk id created twice).
 */
function transactions(batch: readonly StoredEvent[]): Array<Array<StoredEvent | FileEvent[]>> {
  const parts: Array<Array<StoredEvent | FileEvent[]>> = [[]];
  let earlier = new Set<string>();
  let run: FileEvent[] | undefined;
  for (const event of batch) {
    if (event.type !== "file.indexed" && event.type !== "file.removed") {
      for (const file of run ?? []) earlier.add(fileKey(file.data.project, file.data.path));
      run = undefined;
      parts.at(-1)!.push(event);
      continue;
    }
    if (earlier.has(fileKey(event.data.project, event.data.path))) {
      parts.push([]);
      earlier = new Set();
      run = undefined;
    }
    if (!run) parts.at(-1)!.push(run = []);
    run.push(event as FileEvent);
  }
  return parts;
}
