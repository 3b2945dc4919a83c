import type { Embedder, Truncation } from "../../text/embedder.ts";

/**
 * An embedder that loads its model on first use, so commands that never embed
 * (list, status, a lexical search) do not pay for starting inference. A load
 * that fails is tried again on the next use (a model download may resume).
 */
/** How long closing waits for a model still loading: a local model loads in a second or two. */
const CLOSE_WAIT_MS = 10_000;

export class LazyEmbedder implements Embedder {
  #inner: Promise<Embedder> | undefined;
  #ready: Embedder | undefined;

  constructor(
    readonly id: string,
    readonly dims: number,
    private readonly load: () => Promise<Embedder>,
    /** How long `close` waits for a model still loading (see {@linkcode LazyEmbedder.close}). */
    private readonly closeWaitMs = CLOSE_WAIT_MS,
  ) {}

  /** Starts loading the model now, so its first use waits less; a failure is left for that use to report. */
  warm(): void {
    this.#model().catch(() => {});
  }

  /** True once the model has loaded: a call now embeds without waiting for it. */
  get ready(): boolean {
    return this.#ready !== undefined;
  }

  async embedDocuments(texts: readonly string[], urgent?: boolean): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    return await (await this.#model()).embedDocuments(texts, urgent);
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return await (await this.#model()).embedQuery(text);
  }

  /** What the model cut so far; undefined until it has loaded. */
  truncation(): Truncation | undefined {
    return this.#ready?.truncation?.();
  }

  /** The model's limit when the query `text` is longer than it; undefined until it has loaded. */
  queryCutAt(text: string): number | undefined {
    return this.#ready?.queryCutAt?.(text);
  }

  /**
   * Closes the loaded model. A model still loading is waited for a few
   * seconds and closed (its load checks the model's files and opens the
   * store's cache: it must not write into a store already closed); one that
   * takes longer (a download) is closed when it arrives, so stopping never
   * hangs on it.
   */
  async close(): Promise<void> {
    if (this.#ready) return await this.#ready.close();
    if (!this.#inner) return;
    const closed = this.#inner.then((model) => model.close(), () => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise((resolve) => (timer = setTimeout(resolve, this.closeWaitMs)));
    await Promise.race([closed, waited]).finally(() => clearTimeout(timer));
  }

  #model(): Promise<Embedder> {
    if (!this.#inner) {
      const loading = this.load();
      this.#inner = loading;
      loading.then((model) => (this.#ready = model), () => {
        if (this.#inner === loading) this.#inner = undefined;
      });
    }
    return this.#inner;
  }
}
