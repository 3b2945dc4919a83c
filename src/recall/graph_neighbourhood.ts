import type { KuzuDb } from "../../projections/graph/kuzu.ts";
import type { Edge } from "./ppr.ts";
import type { Source } from "./types.ts";

/** Most edges pulled in through one query, so a hub cannot flood the walk. */
const CAP = 2000;

/**
 * Which file holds which chunk, from memory (the lexical index keeps it): the
 * walk's busiest hops, answered without a graph query.
 */
export interface CodeFiles {
  fileOf(chunkId: string): string | undefined;
  chunksOf(file: string): string[];
}

/** The seed documents of a walk, by source. */
export type Seeds = Partial<Record<Source, readonly string[]>>;

/** One hop: from nodes of kind `from` (ids in `$ids`) to nodes of kind `to`, as rows `{a, b}`. */
interface Hop {
  from: string;
  to: string;
  query: string;
}

/**
 * From the seeds to what they name or touch. Code seeds reach their files
 * only: walking from a chunk to the symbols it defines and calls and on to
 * every other chunk naming them cost most of a recall (a 2,000-edge hop) and
 * ranked worse on swebench-lite-dev (docs/decisions.md).
 */
const FIRST_HOPS: Hop[] = [
  {
    from: "memory",
    to: "entity",
    query:
      "MATCH (a:Memory)-[:MENTIONS]->(b:Entity) WHERE a.id IN $ids RETURN a.id AS a, b.name AS b",
  },
  {
    from: "memory",
    to: "file",
    query: "MATCH (a:Memory)-[:MENTIONS]->(b:File) WHERE a.id IN $ids RETURN a.id AS a, b.key AS b",
  },
  {
    from: "memory",
    to: "symbol",
    query:
      "MATCH (a:Memory)-[:MENTIONS]->(b:Symbol) WHERE a.id IN $ids RETURN a.id AS a, b.key AS b",
  },
  {
    from: "code",
    to: "file",
    query: "MATCH (a:Chunk)<-[:CONTAINS]-(b:File) WHERE a.id IN $ids RETURN a.id AS a, b.key AS b",
  },
  {
    from: "turn",
    to: "file",
    query: "MATCH (a:Turn)-[:TOUCHED]->(b:File) WHERE a.key IN $ids RETURN a.key AS a, b.key AS b",
  },
];

/** From those hubs to the other memories, chunks and turns attached to them. */
const SECOND_HOPS: Hop[] = [
  {
    from: "entity",
    to: "memory",
    query:
      `MATCH (b:Memory)-[:MENTIONS]->(a:Entity) WHERE a.name IN $ids AND b.forgotten_at = "" RETURN a.name AS a, b.id AS b`,
  },
  {
    from: "file",
    to: "code",
    query: "MATCH (a:File)-[:CONTAINS]->(b:Chunk) WHERE a.key IN $ids RETURN a.key AS a, b.id AS b",
  },
  {
    from: "file",
    to: "turn",
    query: "MATCH (b:Turn)-[:TOUCHED]->(a:File) WHERE a.key IN $ids RETURN a.key AS a, b.key AS b",
  },
  {
    from: "file",
    to: "memory",
    query:
      `MATCH (b:Memory)-[:MENTIONS]->(a:File) WHERE a.key IN $ids AND b.forgotten_at = "" RETURN a.key AS a, b.id AS b`,
  },
  {
    from: "symbol",
    to: "code",
    query:
      "MATCH (b:Chunk)-[:DEFINES|:REFERS]->(a:Symbol) WHERE a.key IN $ids RETURN a.key AS a, b.id AS b",
  },
  {
    from: "symbol",
    to: "memory",
    query:
      `MATCH (b:Memory)-[:MENTIONS]->(a:Symbol) WHERE a.key IN $ids AND b.forgotten_at = "" RETURN a.key AS a, b.id AS b`,
  },
];

const RELATED =
  "MATCH (a:Entity)-[:RELATES]-(b:Entity) WHERE a.name IN $ids RETURN a.name AS a, b.name AS b";

/** Every source a walk can end on. */
const ALL_SOURCES: readonly Source[] = ["memory", "code", "turn"];

/**
 * The part of the graph around the seeds that personalized PageRank walks,
 * two hops out: seeds reach the entities, files and symbols they name or
 * touch; those reach the other memories, chunks and turns attached to
 * them, of the sources in `reach` only (a code question need not fetch the
 * turns that touched its files). A relation between entities counts as no
 * extra hop. Node ids: `memory:<id>`, `code:<chunk id>`, `turn:<session>:<line>`,
 * `entity:<name>`, `file:<key>`, `symbol:<key>`. Forgotten memories stay out.
 */
export async function neighbourhood(
  db: KuzuDb,
  seeds: Seeds,
  reach: readonly Source[] = ALL_SOURCES,
  files?: CodeFiles,
): Promise<Edge[]> {
  const edges: Edge[] = [];
  const walk = async (hop: Hop, ids: readonly string[]) => {
    if (ids.length === 0) return [];
    const inMemory = files && codeFileHop(hop, ids, files);
    if (inMemory) {
      for (const [a, b] of inMemory) edges.push([`${hop.from}:${a}`, `${hop.to}:${b}`]);
      return inMemory.map(([, b]) => b);
    }
    const rows = await db.run(`${hop.query} LIMIT ${CAP}`, { ids: [...ids] });
    for (const row of rows) edges.push([`${hop.from}:${row.a}`, `${hop.to}:${row.b}`]);
    return rows.map((row) => row.b as string);
  };
  const reached = new Map<string, Set<string>>();
  for (const hop of FIRST_HOPS) {
    const found = await walk(hop, seeds[hop.from as Source] ?? []);
    const set = reached.get(hop.to) ?? new Set();
    for (const id of found) set.add(id);
    reached.set(hop.to, set);
  }
  const entities = reached.get("entity") ?? new Set();
  for (
    const related of await walk({ from: "entity", to: "entity", query: RELATED }, [...entities])
  ) {
    entities.add(related);
  }
  for (const hop of SECOND_HOPS) {
    if (reach.includes(hop.to as Source)) await walk(hop, [...reached.get(hop.from) ?? []]);
  }
  return edges;
}

/** The rows of a chunk → file or file → chunk hop, from `files`; undefined for other hops. */
function codeFileHop(
  hop: Hop,
  ids: readonly string[],
  files: CodeFiles,
): Array<[string, string]> | undefined {
  if (hop.from === "code" && hop.to === "file") {
    return ids.flatMap((id) => {
      const file = files.fileOf(id);
      return file === undefined ? [] : [[id, file] as [string, string]];
    }).slice(0, CAP);
  }
  if (hop.from === "file" && hop.to === "code") {
    return ids.flatMap((file) => files.chunksOf(file).map((id) => [file, id] as [string, string]))
      .slice(0, CAP);
  }
  return undefined;
}
