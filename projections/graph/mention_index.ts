import { codeNames } from "../../text/code_mentions.ts";

/** A memory naming a file: which memory, and the path as it wrote it (`login.ts`, `src/auth/login.ts`). */
export interface FileMention {
  id: string;
  /** The memory's project ("" for a global memory). */
  project: string;
  path: string;
}

interface Named {
  project: string;
  paths: string[];
  symbols: string[];
}

/**
 * Which memories name which file paths and code identifiers, so code indexed
 * after a memory was written still gets linked to it. Paths are found by their
 * last segment, symbols by their simple name.
 */
export class CodeMentionIndex {
  #byMemory = new Map<string, Named>();
  #byFileName = new Map<string, Set<string>>();
  #bySymbol = new Map<string, Set<string>>();

  /** Records what memory `id` (of `project`, "" for global) names in `content`, replacing what it named before. */
  set(id: string, project: string, content: string): void {
    this.delete(id);
    const { paths, symbols } = codeNames(content);
    if (paths.length === 0 && symbols.length === 0) return;
    this.#byMemory.set(id, { project, paths, symbols });
    for (const path of paths) add(this.#byFileName, lastSegment(path), id);
    for (const symbol of symbols) add(this.#bySymbol, symbol, id);
  }

  /** Forgets memory `id`. */
  delete(id: string): void {
    const named = this.#byMemory.get(id);
    if (!named) return;
    this.#byMemory.delete(id);
    for (const path of named.paths) remove(this.#byFileName, lastSegment(path), id);
    for (const symbol of named.symbols) remove(this.#bySymbol, symbol, id);
  }

  /** The memories of `project` (or global ones) that name the file at `path`, whole or by its end. */
  namingFile(project: string, path: string): FileMention[] {
    const found: FileMention[] = [];
    for (const id of this.#byFileName.get(lastSegment(path)) ?? []) {
      const named = this.#byMemory.get(id)!;
      if (named.project !== "" && named.project !== project) continue;
      for (const written of named.paths) {
        if (path === written || path.endsWith(`/${written}`)) {
          found.push({ id, project: named.project, path: written });
        }
      }
    }
    return found;
  }

  /** The memories of `project` (or global ones) that name the identifier `name`. */
  namingSymbol(project: string, name: string): string[] {
    return [...this.#bySymbol.get(name) ?? []].filter((id) => {
      const owner = this.#byMemory.get(id)!.project;
      return owner === "" || owner === project;
    });
  }
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function add(map: Map<string, Set<string>>, key: string, id: string): void {
  let ids = map.get(key);
  if (!ids) map.set(key, ids = new Set());
  ids.add(id);
}

function remove(map: Map<string, Set<string>>, key: string, id: string): void {
  const ids = map.get(key);
  ids?.delete(id);
  if (ids?.size === 0) map.delete(key);
}
