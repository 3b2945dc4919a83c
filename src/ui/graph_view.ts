/**
 * The parts of the graph the web view draws: a node's neighbours (one click
 * expands one node), and the neighbourhood recall walks from a question's top
 * results. Nodes are named as recall's walk names them: `memory:<id>`,
 * `code:<chunk id>`, `turn:<turn id>`, `entity:<name>`, `file:<key>`,
 * `symbol:<key>`. Every answer is bounded and says what it left out.
 * @module
 */
import { type Hop, type HopFrom, hopLinks } from "../../projections/graph/queries/neighbourhood.ts";
import { fileKeysWithPath, symbolKeysNamed } from "../../projections/graph/queries/code.ts";
import { neighbourhood, type Seeds } from "../recall/graph_neighbourhood.ts";
import type { Source } from "../recall/types.ts";
import type { Cairn } from "../service/cairn.ts";
import { UserError } from "../errors.ts";

/** Most neighbours one expansion adds, per kind of link. */
export const EXPAND_CAP = 40;
/** Most edges of a recall neighbourhood drawn at once. */
export const WALK_CAP = 300;

/** A node as the page draws it. */
export interface ViewNode {
  id: string;
  kind: HopFrom;
  label: string;
  /** The project it belongs to, when it has one. */
  project?: string;
}

/** An edge between two drawn nodes. */
export interface ViewEdge {
  source: string;
  target: string;
  /** A relation's type, between two entities. */
  label?: string;
}

/** A piece of the graph to add to the drawing. */
export interface GraphPiece {
  nodes: ViewNode[];
  edges: ViewEdge[];
  /** Links left out by the caps. */
  omitted: number;
}

/** The hops one expansion follows from each kind of node. */
const EXPANSIONS: Record<HopFrom, readonly string[]> = {
  memory: ["entity", "file", "symbol"],
  code: ["file"],
  turn: ["file"],
  entity: ["entity", "memory"],
  file: ["code", "turn", "memory"],
  symbol: ["code", "memory"],
};

/** A node id split into its kind and key, or a usage error. */
export function parseNode(id: string): { kind: HopFrom; key: string } {
  const colon = id.indexOf(":");
  const kind = id.slice(0, colon) as HopFrom;
  if (colon < 1 || !Object.hasOwn(EXPANSIONS, kind)) {
    throw new UserError(
      `node ${id} is not one of memory:, code:, turn:, entity:, file: or symbol: followed by its id`,
    );
  }
  return { kind, key: id.slice(colon + 1) };
}

/** `node` and its neighbours, at most {@linkcode EXPAND_CAP} of each kind. */
export async function expandNode(cairn: Cairn, node: string): Promise<GraphPiece> {
  const { kind, key } = parseNode(node);
  const edges: ViewEdge[] = [];
  let omitted = 0;
  for (const to of EXPANSIONS[kind]) {
    const links = await hopLinks(
      cairn.graph.database,
      { from: kind, to } as Hop,
      [key],
      EXPAND_CAP + 1,
    );
    if (links.length > EXPAND_CAP) omitted += links.length - EXPAND_CAP;
    for (const link of links.slice(0, EXPAND_CAP)) {
      edges.push({ source: node, target: `${to}:${link.b}` });
    }
  }
  const ids = [node, ...edges.map((edge) => edge.target)];
  return { nodes: await labelled(cairn, [...new Set(ids)]), edges, omitted };
}

/**
 * The neighbourhood recall's graph signal walks from `seeds` (the documents
 * a search found first): the seeds, what they name or touch, and what else
 * hangs on those, at most {@linkcode WALK_CAP} edges, first hops first.
 */
export async function walkedNeighbourhood(cairn: Cairn, seeds: Seeds): Promise<GraphPiece> {
  const sources = Object.keys(seeds) as Source[];
  const walked = await neighbourhood(cairn.graph.database, seeds, sources, cairn.text);
  const seen = new Set<string>();
  const edges: ViewEdge[] = [];
  for (const [source, target] of walked) {
    // The walk follows links both ways (memory → entity → memory): each is drawn once.
    const key = [source, target].sort().join("\0");
    if (seen.has(key)) continue;
    seen.add(key);
    edges.push({ source, target });
  }
  const kept = edges.slice(0, WALK_CAP);
  const seedIds = Object.entries(seeds).flatMap(([source, ids]) =>
    (ids ?? []).map((id) => `${source}:${id}`)
  );
  const ids = new Set([...seedIds, ...kept.flatMap((edge) => [edge.source, edge.target])]);
  return {
    nodes: await labelled(cairn, [...ids]),
    edges: kept,
    omitted: edges.length - kept.length,
  };
}

/** Most nodes of each kind a search finds. */
export const FIND_CAP = 25;

/**
 * The nodes whose name holds `query`: entities (with the relations the
 * graph's search gives them), files by path, symbols by name, and the memory
 * whose id it is, at most {@linkcode FIND_CAP} of each kind.
 */
export async function findNodes(cairn: Cairn, query: string): Promise<GraphPiece> {
  const db = cairn.graph.database;
  const page = await cairn.entities.searchNodes(query, { limit: FIND_CAP });
  const files = await fileKeysWithPath(db, query, FIND_CAP + 1);
  const symbols = await symbolKeysNamed(db, query, FIND_CAP + 1);
  const memory = query.startsWith("mem_") && await cairn.memories.get(query) ? [query] : [];
  const ids = [
    ...page.entities.map((entity) => `entity:${entity.name}`),
    ...page.relations.flatMap((r) => [`entity:${r.from}`, `entity:${r.to}`]),
    ...files.slice(0, FIND_CAP).map((key) => `file:${key}`),
    ...symbols.slice(0, FIND_CAP).map((key) => `symbol:${key}`),
    ...memory.map((id) => `memory:${id}`),
  ];
  return {
    nodes: await labelled(cairn, [...new Set(ids)]),
    edges: page.relations.map((r) => ({
      source: `entity:${r.from}`,
      target: `entity:${r.to}`,
      label: r.relationType,
    })),
    omitted: page.more + Math.max(0, files.length - FIND_CAP) +
      Math.max(0, symbols.length - FIND_CAP),
  };
}

/** The nodes `ids`, each with a label a person can read. */
async function labelled(cairn: Cairn, ids: readonly string[]): Promise<ViewNode[]> {
  const parsed = ids.map((id) => ({ id, ...parseNode(id) }));
  const memoryIds = parsed.filter((node) => node.kind === "memory").map((node) => node.key);
  const memories = new Map(
    (await cairn.memories.getMany(memoryIds)).map((memory) => [memory.id, memory]),
  );
  return parsed.map(({ id, kind, key }) => {
    const scoped = key.split("\0");
    const project = scoped.length === 2 ? scoped[0] : undefined;
    const local = scoped.at(-1)!;
    const label = kind === "memory"
      ? shorten(memories.get(key)?.content ?? key)
      : kind === "code"
      ? cairn.text.codeName(key) ?? key
      : local;
    const memoryProject = kind === "memory" ? memories.get(key)?.project ?? undefined : undefined;
    const where = project ?? memoryProject;
    return { id, kind, label, ...(where ? { project: where } : {}) };
  });
}

function shorten(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 48 ? `${line.slice(0, 47)}…` : line;
}
