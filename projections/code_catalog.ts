/**
 * The code catalog: the indexed projects, their folders, and each file's hash,
 * size, mtime and chunk count, as the code events tell them. `index` reads it
 * to tell which files changed without reading the log.
 * @module
 */
import type { StoredEvent } from "../events/schema.ts";
import { KeyedJournal, type KeyedOp } from "./keyed_journal.ts";
import { KeyedProjection } from "./keyed_projection.ts";

/** An indexed file as its last `file.indexed` event describes it. */
export interface CatalogFile {
  hash: string;
  size: number;
  mtimeMs: number;
  chunks: number;
  /** The chunker version that cut it. */
  chunker: number;
  /** When its event was appended, and where in the log. */
  indexedAt: string;
  seq: number;
}

/** Where a project is, and when a file of it was last indexed. */
export interface ProjectPlace {
  root: string;
  gitRoot?: string;
  /**
   * When the last written of its files was written to the log; null when it
   * has none. (A file removed since does not count: a compaction drops its
   * events.)
   */
  lastIndexed: string | null;
  /** Its git history as last read (see `project.history_read`). */
  history?: HistorySummary;
}

/** A project's git history as last read: the commit, how many commits, the pairs of files that changed together. */
export interface HistorySummary {
  head: string;
  commits: number;
  /** Pairs of files, each pair once (a file's partner list names the pair from either side). */
  pairs: number;
}

/** How many distinct pairs of files `pairs` names, each pair once whichever side lists it. */
export function distinctPairs(pairs: ReadonlyArray<{ file: string; partner: string }>): number {
  return new Set(pairs.map((pair) => [pair.file, pair.partner].sort().join("\0"))).size;
}

/** An indexed project: its place and its files, by path, in the order they were first indexed. */
export interface CatalogProject extends ProjectPlace {
  files: ReadonlyMap<string, CatalogFile>;
}

interface Project extends ProjectPlace {
  files: Map<string, CatalogFile>;
}

type Value = ProjectPlace | CatalogFile;

const projectKey = (project: string) => `p\0${project}`;
const fileKey = (project: string, path: string) => `f\0${project}\0${path}`;

/** The projects and files the code events describe, kept in `<dir>` (or in memory). */
export class CodeCatalog extends KeyedProjection<Value> {
  readonly name = "code_catalog";
  readonly version = 2;
  /** Projects by name, in the order they were first registered or indexed. */
  #projects = new Map<string, Project>();

  /** Opens (creating) the catalog kept in `dir`. */
  static async open(dir: string): Promise<CodeCatalog> {
    const { journal, entries, seq } = await KeyedJournal.open<Value>(dir);
    const catalog = new CodeCatalog(journal, seq);
    for (const [key, value] of entries) {
      // A path holds no NUL: the last one ends the project's name.
      const last = key.lastIndexOf("\0");
      if (key.startsWith("p\0")) Object.assign(catalog.#projectOf(key.slice(2)), value);
      else {catalog.#projectOf(key.slice(2, last)).files.set(
          key.slice(last + 1),
          value as CatalogFile,
        );}
    }
    return catalog;
  }

  /** A catalog held in memory only, empty. */
  static inMemory(): CodeCatalog {
    return new CodeCatalog(undefined, 0);
  }

  /** The project named `name`, if indexed. */
  project(name: string): CatalogProject | undefined {
    return this.#projects.get(name);
  }

  /** Every indexed project by name, in the order they were first registered or indexed. */
  projects(): ReadonlyMap<string, CatalogProject> {
    return this.#projects;
  }

  count(): Promise<number> {
    let count = 0;
    for (const project of this.#projects.values()) count += 1 + project.files.size;
    return Promise.resolve(count);
  }

  protected fold(events: readonly StoredEvent[]): KeyedOp<Value>[] {
    const ops: KeyedOp<Value>[] = [];
    /** Projects whose last-indexed time changed: written once, after the batch. */
    const touched = new Set<string>();
    /** Projects that lost the file last written: their last-indexed time is found again. */
    const lost = new Set<string>();
    for (const event of events) {
      switch (event.type) {
        case "project.registered": {
          const { project: name, root, git_root } = event.data;
          // A registration states the whole place: a project moved out of a repository has none.
          const project = this.#projectOf(name);
          project.root = root;
          if (git_root) project.gitRoot = git_root;
          else delete project.gitRoot;
          ops.push([projectKey(name), placeOf(project)]);
          break;
        }
        case "project.history_read": {
          const project = this.#projects.get(event.data.project);
          if (!project) break;
          const { head, commits, pairs } = event.data;
          project.history = { head, commits, pairs: distinctPairs(pairs) };
          ops.push([projectKey(event.data.project), placeOf(project)]);
          break;
        }
        case "project.deleted": {
          const name = event.data.project;
          const project = this.#projects.get(name);
          if (!project) break;
          for (const path of project.files.keys()) ops.push([fileKey(name, path)]);
          ops.push([projectKey(name)]);
          this.#projects.delete(name);
          touched.delete(name);
          break;
        }
        case "file.indexed": {
          const { project: name, path, hash, size, mtime_ms, chunks, chunker = 1 } = event.data;
          if (!this.#projects.has(name)) {
            ops.push([projectKey(name), placeOf(this.#projectOf(name))]);
          }
          const file = {
            hash,
            size,
            mtimeMs: mtime_ms,
            chunks: chunks.length,
            chunker,
            indexedAt: event.ts,
            seq: event.seq,
          };
          const project = this.#projects.get(name)!;
          project.files.set(path, file);
          project.lastIndexed = event.ts;
          ops.push([fileKey(name, path), file]);
          touched.add(name);
          lost.delete(name);
          break;
        }
        case "file.removed": {
          const { project: name, path } = event.data;
          const project = this.#projects.get(name);
          const file = project?.files.get(path);
          if (!project || !file) break;
          project.files.delete(path);
          ops.push([fileKey(name, path)]);
          if (file.indexedAt === project.lastIndexed) lost.add(name);
          break;
        }
      }
    }
    for (const name of lost) {
      const project = this.#projects.get(name);
      if (!project) continue;
      project.lastIndexed = latest(project.files.values())?.indexedAt ?? null;
      touched.add(name);
    }
    for (const name of touched) {
      const project = this.#projects.get(name);
      if (project) ops.push([projectKey(name), placeOf(project)]);
    }
    return ops;
  }

  protected *entries(): Iterable<readonly [string, Value]> {
    for (const [name, project] of this.#projects) {
      yield [projectKey(name), placeOf(project)];
      for (const [path, file] of project.files) yield [fileKey(name, path), file];
    }
  }

  protected clear(): void {
    this.#projects.clear();
  }

  /** The project `name`, created (with no folder yet) if unknown. */
  #projectOf(name: string): Project {
    let project = this.#projects.get(name);
    if (!project) {
      this.#projects.set(name, project = { root: "", lastIndexed: null, files: new Map() });
    }
    return project;
  }
}

/** The file written last. */
function latest(files: Iterable<CatalogFile>): CatalogFile | undefined {
  let last: CatalogFile | undefined;
  for (const file of files) if (!last || file.seq > last.seq) last = file;
  return last;
}

function placeOf(project: Project): ProjectPlace {
  return {
    root: project.root,
    ...(project.gitRoot ? { gitRoot: project.gitRoot } : {}),
    lastIndexed: project.lastIndexed,
    ...(project.history ? { history: project.history } : {}),
  };
}
