/**
 * What indexing asks the vectors projection to embed, and in which order. A
 * project's own code is what recall searches by meaning most, so its files
 * reach the log (and the vectors, which follow the log) before the files
 * recall lowers (tests, docs, changelogs, tooling, examples, data), which
 * follow in path order. And a table (a translation catalogue, a JSON or CSV
 * table, a drawing, a lock file, a snapshot), wherever it is, is embedded by
 * its first chunk only: the rest of it is searched by its words, which is
 * how such a file is found; sphinx's translation catalogues alone are half
 * of the text of its repository (docs/decisions.md has the measurements).
 * Prose and configuration (`.txt`, YAML, TOML, XML: an OpenAPI spec, a
 * deployment) keep every vector.
 * @module
 */
import { loweredKindOf } from "../recall/path_priors.ts";

/** Catalogues, tables, drawings, lock files and snapshots, by extension. */
const TABLE_FILE = /\.(po|pot|json|jsonl|ndjson|geojson|csv|tsv|svg|lock|snap)$/i;

/** How many of a table's chunks, from the first, get a vector. */
const TABLE_VECTORS = 1;

/** Whether the file at `path` is embedded after the project's own code: a kind recall lowers. */
export function waitsBehindCode(path: string): boolean {
  return loweredKindOf(path) !== undefined;
}

/** `files` with the project's own code first, then the kinds recall lowers; each part keeps its order. */
export function codeFirst<T extends { path: string }>(files: readonly T[]): T[] {
  const behind = (file: T) => waitsBehindCode(file.path);
  return [...files.filter((file) => !behind(file)), ...files.filter(behind)];
}

/**
 * How many of the `chunks` chunks of the file at `path` get a vector, when
 * fewer than all of them: undefined for every file but a table of more
 * chunks than {@linkcode TABLE_VECTORS}.
 */
export function embeddedChunks(path: string, chunks: number): number | undefined {
  return TABLE_FILE.test(path) && chunks > TABLE_VECTORS ? TABLE_VECTORS : undefined;
}
