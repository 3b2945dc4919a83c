/**
 * File-system events turned into batches of work: changed paths are gathered
 * until a quiet spell passes without a new event (an editor's atomic save, a
 * `git checkout` of thousands of files: one batch), or until the first of
 * them has waited long enough (a log written without pause must not hold
 * back a saved source file forever), then handed over one batch at a time;
 * what changes during a run forms the next batch.
 * @module
 */

/** How events become batches. */
export interface WatchBatchOptions {
  /** Milliseconds without an event before a batch is handed over. */
  quietMs: number;
  /** Milliseconds after its first change that a batch is handed over, quiet or not. */
  maxWaitMs: number;
  /** Whether a changed path matters at all. */
  accept: (path: string) => boolean;
  /** Does the work for one batch of distinct paths; its errors go to `onError`. */
  run: (paths: string[]) => Promise<void>;
  onError: (error: Error) => void;
}

/**
 * The paths of the batch being gathered and when it is due, on a clock the
 * caller gives, so that the timing is testable without waiting.
 * @example
 * ```ts
 * const pending = new PendingPaths(500, 5_000);
 * pending.add(["/r/a.py"], 0);
 * pending.add(["/r/b.py"], 100);
 * pending.dueIn(100); // 500: quiet since 100
 * ```
 */
export class PendingPaths {
  #paths = new Set<string>();
  #first = 0;
  #last = 0;

  constructor(private readonly quietMs: number, private readonly maxWaitMs: number) {}

  /** Adds paths that changed at time `now` (milliseconds). */
  add(paths: readonly string[], now: number): void {
    if (paths.length === 0) return;
    if (this.#paths.size === 0) this.#first = now;
    this.#last = now;
    for (const path of paths) this.#paths.add(path);
  }

  /** Milliseconds from `now` until the batch is due (0: it is), or undefined when none is pending. */
  dueIn(now: number): number | undefined {
    if (this.#paths.size === 0) return undefined;
    const due = Math.min(this.#last + this.quietMs, this.#first + this.maxWaitMs);
    return Math.max(0, due - now);
  }

  /** Takes the pending paths, sorted, and starts an empty batch. */
  take(): string[] {
    const paths = [...this.#paths].sort();
    this.#paths.clear();
    return paths;
  }
}

/**
 * Reads `events` until the stream ends (the watcher closed) or fails,
 * batching as described above; settles once the last batch, pending ones
 * included, ran, and rejects with the stream's own failure if it had one.
 */
export async function watchBatches(
  events: AsyncIterable<Deno.FsEvent>,
  options: WatchBatchOptions,
): Promise<void> {
  const pending = new PendingPaths(options.quietMs, options.maxWaitMs);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let queue = Promise.resolve();
  const flush = () => {
    const paths = pending.take();
    if (paths.length === 0) return;
    queue = queue.then(() => options.run(paths)).catch((error) => options.onError(error));
  };
  try {
    for await (const event of events) {
      const accepted = event.paths.filter(options.accept);
      if (accepted.length === 0) continue;
      pending.add(accepted, Date.now());
      clearTimeout(timer);
      timer = setTimeout(flush, pending.dueIn(Date.now()));
    }
  } finally {
    clearTimeout(timer);
    flush();
    await queue;
  }
}
