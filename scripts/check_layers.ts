/**
 * `deno run --allow-read scripts/check_layers.ts`: fails when a module
 * imports from a layer above its own, or when modules import each other in a
 * cycle. The layers, lowest first: `events/` and `text/` (neither imports the
 * other), `projections/`, then `src/errors.ts` (the errors every part of src
 * raises or answers), `src/embed`, `src/ingest`, `src/recall`, `src/service`,
 * `src/team` (a store's sync with its team), `src/ops`, `src/mcp`, `src/ui`
 * (the web view), `src/cli`, and `main.ts` on top.
 * @module
 */
import { dirname, join, normalize } from "node:path";

/**
 * A layer: its folder (ending in `/`) or its one file, and its rank. A module
 * imports from its own layer and from layers of lower rank only.
 */
export interface Layer {
  prefix: string;
  rank: number;
}

/** cairn's layers. `events/` and `text/` share the bottom rank and stay apart. */
export const LAYERS: readonly Layer[] = [
  { prefix: "events/", rank: 0 },
  { prefix: "text/", rank: 0 },
  { prefix: "projections/", rank: 1 },
  { prefix: "src/errors.ts", rank: 2 },
  { prefix: "src/embed/", rank: 3 },
  { prefix: "src/ingest/", rank: 4 },
  { prefix: "src/recall/", rank: 5 },
  { prefix: "src/service/", rank: 6 },
  { prefix: "src/team/", rank: 6.5 },
  { prefix: "src/ops/", rank: 7 },
  { prefix: "src/mcp/", rank: 8 },
  { prefix: "src/ui/", rank: 9 },
  { prefix: "src/cli/", rank: 10 },
  { prefix: "main.ts", rank: 11 },
];

/** Modules by their path from the repository's root, each with the paths it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** An import that breaks the layering: from `from` to `to`, with why. */
export interface BadImport {
  from: string;
  to: string;
  reason: string;
}

/** What is wrong with a graph: imports against the layering, and cycles (start repeated last). */
export interface LayerReport {
  badImports: BadImport[];
  cycles: string[][];
}

/** What an `import` binds: a default, a namespace or named bindings, or a default and either. */
const BINDINGS = String.raw`(?:[\w$]+\s*,?\s*)?(?:\*\s*as\s+[\w$]+|\{[^}]*\})?`;
const SPECIFIER = String.raw`["']([^"']+)["']`;
const STATIC = new RegExp(
  [
    String.raw`^import\s+(?:type\s+)?${BINDINGS}\s*from\s*${SPECIFIER}`,
    String.raw`^import\s*${SPECIFIER}`,
    String.raw`^export\s+(?:type\s+)?(?:\*(?:\s*as\s+[\w$]+)?|\{[^}]*\})\s*from\s*${SPECIFIER}`,
  ].join("|"),
  "gm",
);
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/**
 * The relative specifiers `source` imports: `import` (with `type` or not),
 * `export … from`, and `import("…")` with a literal, in the order written.
 * Static imports are read at the start of a line only, where `deno fmt` puts
 * them, so an example in a comment is not taken for one.
 */
export function relativeImports(source: string): string[] {
  const specifiers = [
    ...[...source.matchAll(STATIC)].map((match) => match.slice(1).find((group) => group)!),
    ...[...source.matchAll(DYNAMIC)].map((match) => match[1]!),
  ];
  return specifiers.filter((specifier) => specifier.startsWith("."));
}

/** The layer `path` (from the repository's root) belongs to, if any. */
export function layerOf(path: string, layers: readonly Layer[] = LAYERS): Layer | undefined {
  return layers.find((layer) =>
    layer.prefix.endsWith("/") ? path.startsWith(layer.prefix) : path === layer.prefix
  );
}

/**
 * The imports of `graph` that go up a layer, across layers of one rank, or
 * into no layer, and its import cycles: one shortest cycle through each
 * module that is on one, each cycle once.
 * @example
 * ```ts
 * const graph = new Map([["text/a.ts", ["src/recall/b.ts"]], ["src/recall/b.ts", []]]);
 * checkLayers(graph).badImports;
 * // [{ from: "text/a.ts", to: "src/recall/b.ts", reason: "up from text/ to src/recall/" }]
 * ```
 */
export function checkLayers(graph: ImportGraph, layers: readonly Layer[] = LAYERS): LayerReport {
  const badImports: BadImport[] = [];
  for (const [from, targets] of graph) {
    const source = layerOf(from, layers);
    for (const to of targets) {
      const reason = layerBreak(from, source, to, layerOf(to, layers));
      if (reason !== undefined) badImports.push({ from, to, reason });
    }
  }
  return { badImports, cycles: cycles(graph) };
}

function layerBreak(
  from: string,
  source: Layer | undefined,
  to: string,
  target: Layer | undefined,
): string | undefined {
  if (source === undefined) return `${from} is in no layer`;
  if (target === undefined) return `${to} is in no layer`;
  if (source === target || target.rank < source.rank) return undefined;
  if (target.rank === source.rank) return `${source.prefix} and ${target.prefix} stay apart`;
  return `up from ${source.prefix} to ${target.prefix}`;
}

function cycles(graph: ImportGraph): string[][] {
  const found = new Map<string, string[]>();
  for (const start of [...graph.keys()].sort()) {
    const cycle = shortestCycle(graph, start);
    if (cycle === undefined) continue;
    const key = cycle.slice(1).sort().join("\0");
    if (!found.has(key)) found.set(key, cycle);
  }
  return [...found.values()];
}

/** The shortest path from `start` back to itself, breadth first. */
function shortestCycle(graph: ImportGraph, start: string): string[] | undefined {
  const previous = new Map<string, string>();
  let frontier = [start];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const module of frontier) {
      for (const target of graph.get(module) ?? []) {
        if (target === start) return [...pathTo(previous, module), start];
        if (previous.has(target)) continue;
        previous.set(target, module);
        next.push(target);
      }
    }
    frontier = next;
  }
  return undefined;
}

function pathTo(previous: ReadonlyMap<string, string>, end: string): string[] {
  const path = [end];
  for (let at = previous.get(end); at !== undefined; at = previous.get(at)) path.unshift(at);
  return path;
}

/** The import graph of the `.ts` files under `folders`, and of `files`, in the repository at `root`. */
export async function readImportGraph(
  root: string,
  folders: readonly string[],
  files: readonly string[],
): Promise<Map<string, string[]>> {
  const paths = [...files];
  for (const folder of folders) paths.push(...await typeScriptFiles(root, folder));
  const graph = new Map<string, string[]>();
  for (const path of paths.sort()) {
    const source = await Deno.readTextFile(join(root, path));
    const targets = relativeImports(source).map((specifier) =>
      normalize(join(dirname(path), specifier))
    );
    // A data file (`deno.json`) imports nothing and belongs to no layer.
    graph.set(path, [...new Set(targets.filter((target) => target.endsWith(".ts")))]);
  }
  return graph;
}

async function typeScriptFiles(root: string, folder: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(join(root, folder))) {
    const path = join(folder, entry.name);
    if (entry.isDirectory) found.push(...await typeScriptFiles(root, path));
    else if (entry.isFile && entry.name.endsWith(".ts")) found.push(path);
  }
  return found;
}

if (import.meta.main) {
  const root = new URL("../", import.meta.url).pathname;
  const graph = await readImportGraph(root, ["events", "text", "projections", "src"], ["main.ts"]);
  const { badImports, cycles } = checkLayers(graph);
  for (const { from, to, reason } of badImports) console.log(`${from} → ${to} (${reason})`);
  for (const cycle of cycles) console.log(`cycle: ${cycle.join(" → ")}`);
  if (badImports.length + cycles.length > 0) {
    console.log(`${badImports.length} imports against the layers, ${cycles.length} cycles`);
    Deno.exit(1);
  }
  console.log(`${graph.size} modules: every import goes down a layer, and none in a cycle`);
}
