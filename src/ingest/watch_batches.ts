/**
 * File-system events turned into batches of work: changed paths are gathered
 * until a quiet spell passes without a new event (an editor's atomic save, a
 * `git checkout` of thousands of files: one batch), then handed over one
 * batch at a time; what changes during a run forms the next batch.
 * @module
 */

/** How events become batches. */
export interface WatchBatchOptions {
  /** Milliseconds without an event before a batch is handed over. */
  quietMs: number;
  /** Whether a changed path matters at all. */
  accept: (path: string) => boolean;
  /** Does the work for one batch of distinct paths; its errors go to `onError`. */
  run: (paths: string[]) => Promise<void>;
  onError: (error: Error) => void;
}

/**
 * Reads `events` until the stream ends (the watcher closed), batching as
 * described above; resolves once the last batch, pending ones included, ran.
 */
export async function watchBatches(
  events: AsyncIterable<Deno.FsEvent>,
  options: WatchBatchOptions,
): Promise<void> {
  const pending = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let queue = Promise.resolve();
  const flush = () => {
    timer = undefined;
    if (pending.size === 0) return;
    const paths = [...pending].sort();
    pending.clear();
    queue = queue.then(() => options.run(paths)).catch((error) => options.onError(error));
  };
  for await (const event of events) {
    const accepted = event.paths.filter(options.accept);
    if (accepted.length === 0) continue;
    for (const path of accepted) pending.add(path);
    clearTimeout(timer);
    timer = setTimeout(flush, options.quietMs);
  }
  clearTimeout(timer);
  flush();
  await queue;
}
