import type { KuzuDb } from "../../projections/graph/kuzu.ts";
import { type Hop, hopLinks } from "../../projections/graph/queries/neighbourhood.ts";
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

/**
 * From the seeds to what they name or touch. Code seeds reach their files
 * only: walking from a chunk to the symbols it defines and calls and on to
 * every other chunk naming them cost most of a recall (a 2,000-edge hop) and
 * ranked worse on swebench-lite-dev (docs/decisions.md).
 */
const FIRST_HOPS: Hop[] = [
  { from: "memory", to: "entity" },
  { from: "memory", to: "file" },
  { from: "memory", to: "symbol" },
  { from: "code", to: "file" },
  { from: "turn", to: "file" },
];

/** From those hubs to the other memories, chunks and turns attached to them. */
const SECOND_HOPS: Hop[] = [
  { from: "entity", to: "memory" },
  { from: "file", to: "code" },
  { from: "file", to: "turn" },
  { from: "file", to: "memory" },
  { from: "symbol", to: "code" },
  { from: "symbol", to: "memory" },
];

/** Every source a walk can end on. */
const ALL_SOURCES: readonly Source[] = ["memory", "code", "turn", "entity"];

/**
 * The part of the graph around the seeds that personalized PageRank walks,
 * two hops out: seeds reach the entities, files and symbols they name or
 * touch (an entity seed is one already); those reach the other memories,
 * chunks and turns attached to them, of the sources in `reach` only (a code
 * question need not fetch the turns that touched its files). A relation
 * between entities, and files that change together, count as no extra hop.
 * Node ids: `memory:<id>`, `code:<chunk id>`, `turn:<session>:<line>`,
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
    const links = await hopLinks(db, hop, ids, CAP);
    for (const { a, b } of links) edges.push([`${hop.from}:${a}`, `${hop.to}:${b}`]);
    return links.map(({ b }) => b);
  };
  const reached = new Map<string, Set<string>>();
  for (const hop of FIRST_HOPS) {
    const found = await walk(hop, seeds[hop.from as Source] ?? []);
    const set = reached.get(hop.to) ?? new Set();
    for (const id of found) set.add(id);
    reached.set(hop.to, set);
  }
  const entities = reached.get("entity") ?? new Set();
  for (const name of seeds.entity ?? []) entities.add(name);
  for (const related of await walk({ from: "entity", to: "entity" }, [...entities])) {
    entities.add(related);
  }
  const reachedFiles = reached.get("file") ?? new Set();
  for (const partner of await walk({ from: "file", to: "file" }, [...reachedFiles])) {
    reachedFiles.add(partner);
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
