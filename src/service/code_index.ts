import { join, relative, resolve, sep } from "node:path";
import { z } from "zod";
import { sha256Hex } from "../../events/blobs.ts";
import type { NewEvent } from "../../events/schema.ts";
import {
  type CatalogFile,
  CodeCatalog,
  distinctPairs,
  type HistorySummary,
} from "../../projections/code_catalog.ts";
import { defaultProjectName, findRepository } from "../ingest/code/project.ts";
import { headCommit, isShallow, readCoChanges } from "../ingest/code/history.ts";
import { languageOf } from "../ingest/code/languages.ts";
import { loweredKindOf } from "../recall/path_priors.ts";
import { underPathPrefix } from "../recall/ask.ts";
import { didYouMean } from "../../text/did_you_mean.ts";
import { type BlobProgress, compactStore } from "./compact.ts";
import { codeFirst, embeddedChunks } from "./vector_priority.ts";
import { boundedFileName } from "../../events/file_names.ts";
import { readSource, scan, type ScannedFile, type SkippedFile } from "../ingest/code/scan.ts";
import { type ChunkedFile, CHUNKER_VERSION, chunkFile } from "../ingest/code/source_file.ts";
import { NotFoundError, UserError } from "../errors.ts";
import { followed } from "./followed.ts";
import { isWithin } from "./paths.ts";
import type { Store } from "./store.ts";
import type { IndexedProject } from "../ingest/transcripts/project.ts";

/** What `index` accepts. */
export const IndexInput = z.object({
  /** A folder: a repository, or a folder inside one (only it is scanned). */
  path: z.string().min(1),
  /** The project's name; default: the repository's (or the folder's) name. */
  project: z.string().trim().min(1).max(200)
    .refine((name) => !name.includes(":"), "a project name cannot contain ':' (chunk ids use it)")
    // deno-lint-ignore no-control-regex
    .refine((name) => name.isWellFormed() && !/[\u0000-\u001f\u007f]/.test(name), {
      message: "a project name cannot hold control characters or broken Unicode",
    })
    .optional(),
});

/**
 * Whether a file takes part in the pairs of files changed together: source
 * code only. A changelog, a test, the docs, a manifest or a CI config changes
 * with everything, and would take the partner places of the code that
 * changes with it.
 */
export function pairsUp(path: string): boolean {
  return languageOf(path) !== undefined && loweredKindOf(path) === undefined;
}

/** Files per append: one group commit, and the blobs of their chunks written before it. */
export const FILES_PER_BATCH = 200;
const READ_LANES = 8;
const EXAMPLES = 20;

/** What one run of `index` did. */
export interface IndexReport {
  project: string;
  root: string;
  /** Files the scan found worth reading. */
  scanned: number;
  /** Files (re)chunked and written. */
  indexed: number;
  unchanged: number;
  /** Files that left the index: deleted, renamed away, newly ignored or unreadable. */
  removed: number;
  /** Files left out, with the number per reason, and the first few of them. */
  skipped: number;
  skippedByReason: Record<string, number>;
  skippedExamples: SkippedFile[];
  /** Chunks written this run. */
  chunks: number;
  /**
   * The repository's history when it was read this run: commits read, pairs
   * of files paired up, and whether the clone is shallow (its history cut short).
   */
  history?: { commits: number; pairs: number; shallow?: true };
  seconds: number;
  /** When the run ended, ISO 8601. */
  finishedAt: string;
}

/** How far a run of `index` is: files checked of those found, and what was written so far. */
export interface IndexProgress {
  checked: number;
  total: number;
  indexed: number;
  chunks: number;
}

/** A project's index as the log tells it, with its last run when this store ran it. */
export interface ProjectStatus {
  project: string;
  root: string;
  files: number;
  chunks: number;
  /** When a file of it was last written to the log. */
  lastIndexed: string | null;
  /** Its git history as last read, when it is in a repository. */
  history?: HistorySummary;
  lastRun?: IndexReport;
}

interface Pending {
  file: ScannedFile;
  hash: string;
  chunked: ChunkedFile;
}

/**
 * Code indexing: scans a folder, chunks what changed and appends
 * `file.indexed` / `file.removed` events in batches, incrementally. What is
 * already indexed is read from the code catalog projection.
 */
export class CodeIndex {
  #catalog: () => Promise<CodeCatalog>;
  /**
   * Files found with a new mtime but the same content: nothing is written for
   * them, and this process does not read them again while their mtime stays.
   * By `<project>\0<path>`, with the hash they had.
   */
  #touched = new Map<string, { hash: string; mtimeMs: number }>();
  /** The run under way in each repository (or folder outside one), by its root. */
  #runs = new Map<string, Promise<void>>();

  /** @param catalog the store's code catalog; a store opened without one has one built in memory. */
  constructor(private readonly store: Store, catalog?: CodeCatalog) {
    this.#catalog = followed(store.log, catalog, CodeCatalog.inMemory);
  }

  /** The store's folder: never indexed, even inside an indexed folder. */
  get storeDir(): string {
    return this.store.dir;
  }

  /**
   * Indexes the folder `path` as a project (its repository's, unless
   * `project` says otherwise): only files whose size, mtime and then content
   * changed are chunked again; files gone from the folder leave the index.
   * Vectors wait meanwhile: the run has the cores to itself.
   */
  async index(
    input: z.input<typeof IndexInput>,
    progress: (progress: IndexProgress) => void = () => {},
  ): Promise<IndexReport> {
    const parsed = IndexInput.parse(input);
    const target = resolve(parsed.path);
    // Runs in one repository (or folder) take turns: a second finds the first's files unchanged.
    const key = findRepository(target)?.root ?? target;
    const run = (this.#runs.get(key) ?? Promise.resolve()).then(() =>
      this.store.runner.withBackgroundPaused(() => this.#index(parsed, target, progress))
    );
    const done = run.then(() => {}, () => {});
    this.#runs.set(key, done);
    void done.then(() => {
      if (this.#runs.get(key) === done) this.#runs.delete(key);
    });
    return await run;
  }

  async #index(
    { path, project: given }: z.output<typeof IndexInput>,
    asked: string,
    progress: (progress: IndexProgress) => void,
  ): Promise<IndexReport> {
    const started = performance.now();
    const stat = await Deno.stat(asked).catch(() => undefined);
    if (!stat) throw new UserError(`${path} does not exist; give the folder to index`);
    if (!stat.isDirectory) throw new UserError(`${path} is not a folder; give the folder to index`);
    const catalog = await this.#catalog();
    const folders = await projectFolders(catalog);
    const target = await throughIndexedPath(folders, asked);
    const repository = findRepository(target);
    // Outside a repository, a folder inside the named project's root is a part of it, as a
    // repository's subfolder is; otherwise the project would move there and lose its other files.
    const named = given === undefined ? undefined : catalog.project(given);
    const root = repository?.root ??
      (named && !named.gitRoot && isWithin(target, named.root) ? named.root : target);
    await refuseBroadRoot(root);
    const gitRoot = repository?.gitRoot;
    // A folder indexed already (under a name given then, or through a link) is that project.
    const indexed = await projectAt(folders, root);
    const name = given ?? indexed?.name ??
      uniqueName(catalog, defaultProjectName(gitRoot ?? root), gitRoot ?? root);
    const before = catalog.project(name);
    if (!before && indexed) refuseIndexedFolder(root, path, indexed);
    const moved = before !== undefined && before.root !== root;
    if (moved) await refuseSecondFolder(name, before.root, root);
    if (!before || moved) {
      await this.store.append([{
        type: "project.registered",
        v: 1,
        data: { project: name, root, ...(gitRoot ? { git_root: gitRoot } : {}) },
      }]);
    }
    // The catalog has taken in every event appended: it follows the writes below as they go.
    const project = (await this.#catalog()).project(name)!;
    const found = await scan(root, target, { skip: [this.store.dir] });
    found.files = codeFirst(found.files);
    const report: IndexReport = {
      project: name,
      root,
      scanned: found.files.length,
      indexed: 0,
      unchanged: 0,
      removed: 0,
      skipped: 0,
      skippedByReason: {},
      skippedExamples: [],
      chunks: 0,
      seconds: 0,
      finishedAt: "",
    };
    const skip = (skipped: SkippedFile) => {
      report.skipped++;
      report.skippedByReason[skipped.reason] = (report.skippedByReason[skipped.reason] ?? 0) + 1;
      if (report.skippedExamples.length < EXAMPLES) report.skippedExamples.push(skipped);
    };
    found.skipped.forEach(skip);
    const seen = new Set<string>();
    /** Files new to the project: with those removed, they change which files can pair up. */
    let added = 0;
    // Batches go through a pipeline: while one batch's events are appended and projected and the
    // next one's chunk texts written (disk and Kùzu work), the one after is read and chunked.
    let writing: Promise<void> | undefined;
    let older: Promise<void> | undefined;
    try {
      for (let at = 0; at < found.files.length; at += FILES_PER_BATCH) {
        if (this.store.interrupted.aborted) {
          throw new UserError(
            `the store's owner is stopping: ${at} of ${found.files.length} files of ${name} ` +
              `checked; \`cairn index ${path}\` goes on from there`,
          );
        }
        await older;
        const batch = found.files.slice(at, at + FILES_PER_BATCH);
        const pending: Pending[] = [];
        const todo = batch.filter((file) => {
          const before = project.files.get(file.path);
          if (
            before?.chunker === CHUNKER_VERSION && before.size === file.size &&
            this.#mtimeOf(name, file.path, before) === file.mtimeMs
          ) {
            seen.add(file.path);
            report.unchanged++;
            return false;
          }
          return true;
        });
        const sources = await readAll(todo);
        for (const [i, file] of todo.entries()) {
          const source = sources[i]!;
          if ("reason" in source) {
            skip({ path: file.path, reason: source.reason });
            continue;
          }
          const hash = await sha256Hex(source.bytes);
          const before = project.files.get(file.path);
          if (before?.hash === hash && before.chunker === CHUNKER_VERSION) {
            seen.add(file.path);
            this.#touched.set(`${name}\0${file.path}`, { hash, mtimeMs: file.mtimeMs });
            report.unchanged++;
            continue;
          }
          const chunked = await chunkFile(file.path, source.text);
          if ("reason" in chunked) {
            skip({ path: file.path, reason: chunked.reason });
            continue;
          }
          seen.add(file.path);
          if (!project.files.has(file.path)) added++;
          pending.push({ file, hash, chunked });
        }
        const checked = Math.min(at + FILES_PER_BATCH, found.files.length);
        older = writing;
        writing = this.#write(name, pending, writing).then(() => {
          report.indexed += pending.length;
          report.chunks += pending.reduce((sum, p) => sum + p.chunked.chunks.length, 0);
          progress({
            checked,
            total: found.files.length,
            indexed: report.indexed,
            chunks: report.chunks,
          });
        });
        // Awaited an iteration later: marked handled now, so a failure meanwhile is not taken for
        // an unhandled rejection (which would end the process) before the loop gets to it.
        writing.catch(() => {});
      }
      await writing;
    } finally {
      // On an error the batches still being written must settle before the error goes up.
      await Promise.allSettled([older, writing]);
    }
    const prefix = moved ? "" : relative(root, target).split(sep).join("/");
    const gone = [...project.files.keys()].filter((file) =>
      !seen.has(file) && (prefix === "" || file.startsWith(`${prefix}/`))
    );
    for (let at = 0; at < gone.length; at += FILES_PER_BATCH) {
      const paths = gone.slice(at, at + FILES_PER_BATCH);
      await this.store.append(paths.map((path) => ({
        type: "file.removed" as const,
        v: 1 as const,
        data: { project: name, path },
      })));
    }
    report.removed = gone.length;
    if (repository) {
      const history = await this.#readHistory(name, root, added + gone.length > 0);
      if (history) report.history = history;
    }
    report.seconds = (performance.now() - started) / 1000;
    report.finishedAt = new Date().toISOString();
    await this.#saveRun(report);
    return report;
  }

  /**
   * Reads which of the project's files change together from its repository
   * at `root` and logs it, when its checked-out commit moved since the last
   * reading or files came or went (`changed`); an edit alone changes no pair,
   * so a watched folder's saves read nothing. What was read, if anything.
   */
  async #readHistory(
    name: string,
    root: string,
    changed: boolean,
  ): Promise<IndexReport["history"]> {
    const head = await headCommit(root);
    const project = (await this.#catalog()).project(name)!;
    if (head === undefined || (head === project.history?.head && !changed)) return undefined;
    const history = await readCoChanges(
      root,
      head,
      (path) => project.files.has(path) && pairsUp(path),
    );
    if (!history) return undefined;
    await this.store.append([{
      type: "project.history_read",
      v: 1,
      data: { project: name, ...history },
    }]);
    return {
      commits: history.commits,
      pairs: distinctPairs(history.pairs),
      ...(await isShallow(root) ? { shallow: true as const } : {}),
    };
  }

  /** Every indexed project's name and folders (sessions are matched to them). */
  async projects(): Promise<IndexedProject[]> {
    return [...(await this.#catalog()).projects()].map(([name, { root, gitRoot }]) => ({
      name,
      root,
      ...(gitRoot ? { gitRoot } : {}),
    }));
  }

  /** Whether any file of `project` (or of any project) is indexed at or under `pathPrefix`. */
  async holdsUnder(pathPrefix: string, project?: string): Promise<boolean> {
    const projects = (await this.#catalog()).projects();
    return [...projects].some(([name, { files }]) =>
      (project === undefined || name === project) &&
      [...files.keys()].some((path) => underPathPrefix(path, pathPrefix))
    );
  }

  /** The indexed projects (or one of them), from the log, with their last run's report. */
  async status(project?: string): Promise<ProjectStatus[]> {
    const known = (await this.#catalog()).projects();
    const names = project ? [project] : [...known.keys()].sort();
    if (project && !known.has(project)) {
      throw new NotFoundError(
        `no project named ${project} is indexed${
          didYouMean(project, [...known.keys()])
        }; index it first (\`cairn index PATH\`, or the index_project tool)`,
      );
    }
    return await Promise.all(names.map(async (name) => {
      const state = known.get(name)!;
      const lastRun = await this.#readRun(name);
      return {
        project: name,
        root: state.root,
        files: state.files.size,
        chunks: [...state.files.values()].reduce((sum, file) => sum + file.chunks, 0),
        lastIndexed: state.lastIndexed,
        ...(state.history ? { history: state.history } : {}),
        ...(lastRun ? { lastRun } : {}),
      };
    }));
  }

  /**
   * Takes a project's code out of the index (its memories and sessions stay),
   * then compacts the log, so that its file events and the blobs of its code
   * leave the store too; `onProgress` hears how many of its blobs are removed.
   */
  async deleteProject(project: string, onProgress?: BlobProgress): Promise<void> {
    if (!(await this.#catalog()).project(project)) {
      throw new NotFoundError(`no project named ${project} is indexed`);
    }
    await this.store.append([{ type: "project.deleted", v: 1, data: { project } }]);
    for (const key of this.#touched.keys()) {
      if (key.startsWith(`${project}\0`)) this.#touched.delete(key);
    }
    await compactStore(this.store, onProgress);
  }

  /**
   * Writes a batch's chunk texts, then, once `previous` (the batch before) is
   * in the log, appends its events: batches reach the log in order, and none
   * after one that failed.
   */
  async #write(
    project: string,
    pending: readonly Pending[],
    previous: Promise<void> | undefined,
  ): Promise<void> {
    const texts = pending.flatMap((p) => p.chunked.chunks.map((chunk) => chunk.text));
    using held = await this.store.blobs.hold(texts);
    const hashes = held.hashes;
    await previous;
    if (pending.length === 0) return;
    let next = 0;
    const events: NewEvent[] = pending.map(({ file, hash, chunked }) => {
      const ids = new Set<string>();
      const embedded = embeddedChunks(file.path, chunked.chunks.length);
      return {
        type: "file.indexed",
        v: 1,
        data: {
          project,
          path: file.path,
          hash,
          size: file.size,
          mtime_ms: file.mtimeMs,
          language: chunked.language,
          chunker: CHUNKER_VERSION,
          chunks: chunked.chunks.map((chunk) => {
            const base = `${project}:${file.path}:${chunk.start_line}-${chunk.end_line}`;
            let id = base;
            for (let n = 2; ids.has(id); n++) id = `${base}~${n}`;
            ids.add(id);
            const { text: _text, ...rest } = chunk;
            return { ...rest, id, text: hashes[next++]! };
          }),
          ...(embedded === undefined ? {} : { embedded_chunks: embedded }),
          references: chunked.references,
        },
      };
    });
    await this.store.append(events);
    for (const { file } of pending) this.#touched.delete(`${project}\0${file.path}`);
  }

  /** The mtime `file` (of `project`, at `path`) was last seen with, as the log or this process saw it. */
  #mtimeOf(project: string, path: string, file: CatalogFile): number {
    const touched = this.#touched.get(`${project}\0${path}`);
    return touched?.hash === file.hash ? touched.mtimeMs : file.mtimeMs;
  }

  #runPath(project: string): string {
    const name = boundedFileName(project, encodeURIComponent(project));
    return join(this.store.dir, "code-index", `${name}.json`);
  }

  async #saveRun(report: IndexReport): Promise<void> {
    await Deno.mkdir(join(this.store.dir, "code-index"), { recursive: true });
    await Deno.writeTextFile(this.#runPath(report.project), JSON.stringify(report));
  }

  async #readRun(project: string): Promise<IndexReport | undefined> {
    try {
      return JSON.parse(await Deno.readTextFile(this.#runPath(project)));
    } catch {
      return undefined;
    }
  }
}

/** `name`, or `name-2`, `name-3`… when another repository already has it. */
function uniqueName(catalog: CodeCatalog, name: string, repository: string): string {
  for (let n = 1;; n++) {
    const candidate = n === 1 ? name : `${name}-${n}`;
    const project = catalog.project(candidate);
    if (!project || (project.gitRoot ?? project.root) === repository) return candidate;
  }
}

async function readAll(files: readonly ScannedFile[]) {
  const results: Awaited<ReturnType<typeof readSource>>[] = new Array(files.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(READ_LANES, files.length) }, async () => {
    while (next < files.length) {
      const i = next++;
      results[i] = await readSource(files[i]!);
    }
  });
  await Promise.all(lanes);
  return results;
}

/**
 * Refuses to make a project of the file system's root or of the user's home:
 * a home holds every other project, caches, and credentials no deny list can
 * name in advance.
 */
async function refuseBroadRoot(root: string): Promise<void> {
  const real = await Deno.realPath(root);
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE");
  const realHome = home ? await Deno.realPath(home).catch(() => undefined) : undefined;
  if (real === resolve("/") || real === realHome) {
    throw new UserError(
      `${root} is ${real === realHome ? "your home folder" : "the root of the file system"}: ` +
        "cairn indexes one project at a time; give a project's folder inside it",
    );
  }
}

/**
 * `folder` by the path of the project it is in when it reaches it another way
 * (a symbolic link): a project's files are known by its own path.
 */
async function throughIndexedPath(
  folders: readonly ProjectFolder[],
  folder: string,
): Promise<string> {
  const here = await realPathOf(folder);
  let best: { root: string; real: string } | undefined;
  for (const { root, real } of folders) {
    if (!real || !here || !isWithin(here, real)) continue;
    if (!best || real.length > best.real.length) best = { root, real };
  }
  return best ? join(best.root, relative(best.real, here!)) : folder;
}

/** The project whose folder `root` is (through a symbolic link too), if any. */
async function projectAt(
  folders: readonly ProjectFolder[],
  root: string,
): Promise<ProjectFolder | undefined> {
  const here = await realPathOf(root);
  return folders.find((folder) => folder.real === here);
}

/** An indexed project's folder: as recorded, and with its links resolved (undefined when gone). */
interface ProjectFolder {
  name: string;
  root: string;
  real: string | undefined;
}

/** Every indexed project's folder, each resolved once for an index run's lookups. */
function projectFolders(catalog: CodeCatalog): Promise<ProjectFolder[]> {
  return Promise.all(
    [...catalog.projects()].map(async ([name, { root }]) => ({
      name,
      root,
      real: await realPathOf(root),
    })),
  );
}

/** `path` with its symbolic links resolved; undefined when it is not there. */
function realPathOf(path: string): Promise<string | undefined> {
  return Deno.realPath(path).catch(() => undefined);
}

/**
 * Refuses a second name for a folder another project is already: every file
 * would be indexed, and found, twice.
 */
function refuseIndexedFolder(root: string, path: string, indexed: { name: string; root: string }) {
  const { name } = indexed;
  throw new UserError(
    `${root} is indexed already, as project ${name}${
      indexed.root === root ? "" : ` (${indexed.root})`
    }: \`cairn index ${path}\` updates it; to give it another name, take it out first ` +
      `(\`cairn delete-project ${name}\`)`,
  );
}

/**
 * Refuses to move project `name` from the folder `was` to `now` while `was`
 * is still there: a name given for a second folder would drop the first
 * folder's index. A project whose folder is gone (a checkout moved) moves.
 */
async function refuseSecondFolder(name: string, was: string, now: string): Promise<void> {
  const there = await Deno.stat(was).then((stat) => stat.isDirectory, () => false);
  if (!there) return;
  throw new UserError(
    `project ${name} is the folder ${was}, which is still there; to index ${now} under that ` +
      `name, take the old one out first (\`cairn delete-project ${name}\`), or name this one apart ` +
      "(another --project)",
  );
}
