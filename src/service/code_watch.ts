/**
 * Keeps a project's code index following its folder: file-system events,
 * batched after 500 ms of quiet, each batch an incremental re-index (a cheap
 * size and mtime check, then content hashes), so atomic saves, renames and a
 * checkout of thousands of files all come down to one run.
 * @module
 */
import { relative, sep } from "node:path";
import { SKIPPED_DIRS } from "../ingest/code/scan.ts";
import { watchBatches } from "../ingest/watch_batches.ts";
import type { CodeIndex, IndexReport } from "./code_index.ts";

/** Quiet time before a batch of changes is indexed. */
export const WATCH_QUIET_MS = 500;

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
   * each batch of changes. Changes inside dependency, build and VCS folders
   * are ignored.
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
      accept: (path) => !relative(root, path).split(sep).some((part) => SKIPPED_DIRS.has(part)),
      run: async (paths) => {
        handlers.onReport(await code.index({ path: root, project }), paths.length);
      },
      onError: handlers.onError,
    });
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

  /** Stops every watch, waiting for re-indexes under way. */
  async stopAll(): Promise<void> {
    const watches = [...this.#watches.values()];
    this.#watches.clear();
    await Promise.all(watches.map((watch) => watch.stop()));
  }
}
