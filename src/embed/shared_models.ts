/**
 * Loading each model once per process and sharing it, for test suites: they
 * open a store, and load its model, hundreds of times in one process. cairn
 * itself never switches it on, so each embedder starts and stops its own
 * inference workers, and each store checks its model's files itself.
 * @module
 */

let sharing = false;

/**
 * From now on in this process, a model file once loaded stays loaded and is
 * shared by every embedder that opens it unchanged with the same settings
 * (see `WorkerPool.open`; a tokenizer likewise, see `TextTokenizer.open`), and
 * a model folder once found intact is not hashed again while its files' sizes
 * and times hold (see `checkModelOnce`).
 */
export function shareLoadedModels(): void {
  sharing = true;
}

/** Whether {@linkcode shareLoadedModels} was called in this process. */
export function sharingModels(): boolean {
  return sharing;
}
