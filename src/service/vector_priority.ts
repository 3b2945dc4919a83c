/**
 * What indexing asks the vectors projection to embed, and in which order. A
 * project's own code is what recall searches by meaning most, so its files
 * reach the log (and the vectors, which follow the log) before the files
 * recall lowers: tests, docs, changelogs, tooling, examples and data. And a
 * data file (a translation catalogue, a JSON table) is embedded by its first
 * chunk only: the rest of it is searched by its words, which is how such a
 * file is found; sphinx's translation catalogues alone are half of the text
 * of its repository (docs/decisions.md has the measurements).
 * @module
 */
import { isDataPath, loweredKindOf } from "../recall/path_priors.ts";

/** How many of a data file's chunks, from the first, get a vector. */
export const DATA_FILE_VECTORS = 1;

/** `files` with the project's own code first, then the kinds recall lowers; each part keeps its order. */
export function codeFirst<T extends { path: string }>(files: readonly T[]): T[] {
  const lowered = (file: T) => loweredKindOf(file.path) !== undefined;
  return [...files.filter((file) => !lowered(file)), ...files.filter(lowered)];
}

/**
 * How many of the `chunks` chunks of the file at `path` get a vector, when
 * fewer than all of them: undefined for every file but a data file of more
 * chunks than {@linkcode DATA_FILE_VECTORS}.
 */
export function embeddedChunks(path: string, chunks: number): number | undefined {
  return isDataPath(path) && chunks > DATA_FILE_VECTORS ? DATA_FILE_VECTORS : undefined;
}
