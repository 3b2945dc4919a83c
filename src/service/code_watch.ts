/**
 * Keeps a project's code index following its folder: file-system events,
 * batched after 500 ms of quiet (5 s at most), each batch an incremental
 * re-index (a cheap size and mtime check, then content hashes), so atomic
 * saves, renames and a checkout of thousands of files all come down to one run.
 * @module
 */
import { isAbsolute, relative, sep } from "node:path";
import { SKIPPED_DIRS } from "../ingest/code/scan.ts";
import { watchBatches } from "../ingest/watch_batches.ts";
import type { CodeIndex, IndexReport } from "./code_index.ts";

/** Quiet time before a batch of changes is indexed. */
export const WATCH_QUIET_MS = 500;
/** The longest a change waits for quiet (files written without pause, a log, must not starve it). */
export const WATCH_MAX_WAIT_MS = 5_000;

/** What a watcher tells its owner. */
export interface CodeWatchHandlers {
  /** After each re-index. */
  onReport: (report: IndexReport, changedPaths: number) => void;
  onError: (error: Error) => void;
}

/** A running watch of one project's folder. */
export class CodeWatch {
  private constructor(
    private readonly watcher: Deno.FsWatcher,
    private readonly done: Promise<void>,
  ) {}

  /**
   * Watches `root` (an indexed folder) and re-indexes it as `project` after
   * each batch of changes. Changes that cannot matter to the index are
   * ignored: see {@linkcode watchedPath}.
   */
  static start(
    code: CodeIndex,
    root: string,
    project: string,
    handlers: CodeWatchHandlers,
    quietMs = WATCH_QUIET_MS,
  ): CodeWatch {
    const watcher = Deno.watchFs(root, { recursive: true });
    const done = watchBatches(watcher, {
      quietMs,
      maxWaitMs: WATCH_MAX_WAIT_MS,
      accept: watchedPath(root, code.storeDir),
      run: async (paths) => {
        handlers.onReport(await code.index({ path: root, project }), paths.length);
      },
      onError: handlers.onError,
    }).catch(handlers.onError);
    return new CodeWatch(watcher, done);
  }

  /** Stops watching and waits for a re-index under way (and pending changes) to finish. */
  async stop(): Promise<void> {
    try {
      this.watcher.close();
    } catch {
      // Already closed.
    }
    await this.done;
  }
}

/**
 * Whether a changed path under `root` can matter to the index: not inside a
 * dependency, build or VCS folder, nor inside cairn's own store `storeDir`
 * (whose writes during a re-index would otherwise start the next one, for ever).
 */
export function watchedPath(root: string, storeDir: string): (path: string) => boolean {
  const store = folderWithin(root, storeDir);
  return (path) => {
    const inner = relative(root, path);
    const inStore = store !== undefined &&
      (store === "" || inner === store || inner.startsWith(store + sep));
    return !inStore && !inner.split(sep).some((part) => SKIPPED_DIRS.has(part));
  };
}

/** Where `folder` is inside `root` (real paths compared, "" for the root itself), if it is. */
function folderWithin(root: string, folder: string): string | undefined {
  try {
    const inner = relative(Deno.realPathSync(root), Deno.realPathSync(folder));
    const outside = inner === ".." || inner.startsWith(`..${sep}`) || isAbsolute(inner);
    return outside ? undefined : inner;
  } catch {
    return undefined;
  }
}

/** The watches a long-running process (the MCP owner) keeps: one per project at most. */
export class CodeWatches {
  #watches = new Map<string, CodeWatch>();

  constructor(private readonly code: CodeIndex) {}

  /** Starts watching `root` as `project`; false when that project is already watched. */
  start(root: string, project: string, handlers: CodeWatchHandlers): boolean {
    if (this.#watches.has(project)) return false;
    this.#watches.set(project, CodeWatch.start(this.code, root, project, handlers));
    return true;
  }

  /** The projects being watched. */
  get projects(): string[] {
    return [...this.#watches.keys()];
  }

  /** Stops watching `project`, waiting for a re-index under way; false when it was not watched. */
  async stop(project: string): Promise<boolean> {
    const watch = this.#watches.get(project);
    if (!watch) return false;
    this.#watches.delete(project);
    await watch.stop();
    return true;
  }

  /** Stops every watch, waiting for re-indexes under way. */
  async stopAll(): Promise<void> {
    const watches = [...this.#watches.values()];
    this.#watches.clear();
    await Promise.all(watches.map((watch) => watch.stop()));
  }
}
