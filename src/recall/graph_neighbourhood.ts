import type { KuzuDb } from "../../projections/graph/kuzu.ts";
import type { Edge } from "./ppr.ts";
import type { Source } from "./types.ts";

/** Most edges pulled in through one query, so a hub cannot flood the walk. */
const CAP = 2000;

/** The seed documents of a walk, by source. */
export type Seeds = Partial<Record<Source, readonly string[]>>;

/**
 * The part of the graph around the seeds that personalized PageRank walks,
 * two hops out: seeds reach the entities, files and symbols they name, touch,
 * define or call; those reach the other memories, chunks and turns attached to
 * them. Node ids: `memory:<id>`, `code:<chunk id>`, `turn:<session>:<line>`,
 * `entity:<name>`, `file:<key>`, `symbol:<key>`. Forgotten memories stay out.
 */
export async function neighbourhood(db: KuzuDb, seeds: Seeds): Promise<Edge[]> {
  const edges: Edge[] = [];
  const add = (rows: Array<Record<string, unknown>>, a: string, b: string) => {
    for (const row of rows) edges.push([`${a}:${row.a}`, `${b}:${row.b}`]);
  };
  const memories = [...seeds.memory ?? []];
  const chunks = [...seeds.code ?? []];
  const turns = [...seeds.turn ?? []];
  if (memories.length) {
    add(
      await db.run(
        `MATCH (m:Memory)-[:MENTIONS]->(e:Entity) WHERE m.id IN $ids RETURN m.id AS a, e.name AS b`,
        { ids: memories },
      ),
      "memory",
      "entity",
    );
    add(
      await db.run(
        `MATCH (m:Memory)-[:MENTIONS]->(f:File) WHERE m.id IN $ids RETURN m.id AS a, f.key AS b`,
        { ids: memories },
      ),
      "memory",
      "file",
    );
    add(
      await db.run(
        `MATCH (m:Memory)-[:MENTIONS]->(s:Symbol) WHERE m.id IN $ids RETURN m.id AS a, s.key AS b`,
        { ids: memories },
      ),
      "memory",
      "symbol",
    );
  }
  if (chunks.length) {
    add(
      await db.run(
        `MATCH (c:Chunk)<-[:CONTAINS]-(f:File) WHERE c.id IN $ids RETURN c.id AS a, f.key AS b`,
        { ids: chunks },
      ),
      "code",
      "file",
    );
    add(
      await db.run(
        `MATCH (c:Chunk)-[:DEFINES|:REFERS]->(s:Symbol) WHERE c.id IN $ids RETURN c.id AS a, s.key AS b`,
        { ids: chunks },
      ),
      "code",
      "symbol",
    );
  }
  if (turns.length) {
    add(
      await db.run(
        `MATCH (t:Turn)-[:TOUCHED]->(f:File) WHERE t.key IN $ids RETURN t.key AS a, f.key AS b`,
        { ids: turns },
      ),
      "turn",
      "file",
    );
  }
  const reached = (kind: string) =>
    [...new Set(edges.map(([, b]) => b).filter((b) => b.startsWith(`${kind}:`)))]
      .map((node) => node.slice(kind.length + 1));
  const entities = reached("entity");
  const files = reached("file");
  const symbols = reached("symbol");
  if (entities.length) {
    const related = await db.run(
      `MATCH (a:Entity)-[:RELATES]-(b:Entity) WHERE a.name IN $names RETURN a.name AS a, b.name AS b LIMIT ${CAP}`,
      { names: entities },
    );
    add(related, "entity", "entity");
    // A relation is one hop: memories of related entities are as near as those of the entity.
    const names = [...new Set([...entities, ...related.map((row) => row.b as string)])];
    add(
      await db.run(
        `MATCH (b:Memory)-[:MENTIONS]->(a:Entity) WHERE a.name IN $names AND b.forgotten_at = ""
         RETURN a.name AS a, b.id AS b LIMIT ${CAP}`,
        { names },
      ),
      "entity",
      "memory",
    );
  }
  if (files.length) {
    add(
      await db.run(
        `MATCH (a:File)-[:CONTAINS]->(b:Chunk) WHERE a.key IN $keys RETURN a.key AS a, b.id AS b LIMIT ${CAP}`,
        { keys: files },
      ),
      "file",
      "code",
    );
    add(
      await db.run(
        `MATCH (b:Turn)-[:TOUCHED]->(a:File) WHERE a.key IN $keys RETURN a.key AS a, b.key AS b LIMIT ${CAP}`,
        { keys: files },
      ),
      "file",
      "turn",
    );
    add(
      await db.run(
        `MATCH (b:Memory)-[:MENTIONS]->(a:File) WHERE a.key IN $keys AND b.forgotten_at = "" RETURN a.key AS a, b.id AS b LIMIT ${CAP}`,
        { keys: files },
      ),
      "file",
      "memory",
    );
  }
  if (symbols.length) {
    add(
      await db.run(
        `MATCH (b:Chunk)-[:DEFINES|:REFERS]->(a:Symbol) WHERE a.key IN $keys RETURN a.key AS a, b.id AS b LIMIT ${CAP}`,
        { keys: symbols },
      ),
      "symbol",
      "code",
    );
    add(
      await db.run(
        `MATCH (b:Memory)-[:MENTIONS]->(a:Symbol) WHERE a.key IN $keys AND b.forgotten_at = "" RETURN a.key AS a, b.id AS b LIMIT ${CAP}`,
        { keys: symbols },
      ),
      "symbol",
      "memory",
    );
  }
  return edges;
}
