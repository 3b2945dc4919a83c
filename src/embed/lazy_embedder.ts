import type { Embedder } from "./embedder.ts";

/**
 * An embedder that loads its model on first use, so commands that never embed
 * (list, status, a lexical search) do not pay for starting inference.
 */
export class LazyEmbedder implements Embedder {
  #inner: Promise<Embedder> | undefined;

  constructor(
    readonly id: string,
    readonly dims: number,
    private readonly load: () => Promise<Embedder>,
  ) {}

  /** True once the model has been asked to load. */
  get loaded(): boolean {
    return this.#inner !== undefined;
  }

  async embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    return await (await this.#model()).embedDocuments(texts);
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return await (await this.#model()).embedQuery(text);
  }

  async close(): Promise<void> {
    if (this.#inner) await (await this.#inner).close();
  }

  #model(): Promise<Embedder> {
    this.#inner ??= this.load();
    return this.#inner;
  }
}
