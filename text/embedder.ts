/**
 * The one interface every embedding backend implements (ONNX in a worker, an
 * HTTP provider, the cache wrapper; all in `src/embed`), so the vectors
 * projection and recall do not care where vectors come from.
 * @module
 */

/** Turns texts into unit-length vectors of a fixed width. */
export interface Embedder {
  /**
   * The model's identity, e.g. `bge-small-en-v1.5-int8`: part of the cache key,
   * and what a store checks before mixing vectors from two models.
   */
  readonly id: string;
  /** Width of every vector. */
  readonly dims: number;
  /**
   * Embeds passages (with the model's document prefix); vectors are
   * L2-normalised. `urgent`: someone waits for these (a duplicate check), so
   * they go before passages queued in the background.
   */
  embedDocuments(texts: readonly string[], urgent?: boolean): Promise<Float32Array[]>;
  /** Embeds a search query (with the model's query prefix); the vector is L2-normalised. */
  embedQuery(text: string): Promise<Float32Array>;
  /** Releases workers, sessions and files; the embedder is unusable afterwards. */
  close(): Promise<void>;
  /** What the model has cut to fit its input limit so far; absent where the provider cannot tell. */
  truncation?(): Truncation | undefined;
  /**
   * The model's input limit, in tokens, when `text` embedded as a query is
   * longer (only its start is embedded); undefined when it fits or the provider cannot tell.
   */
  queryCutAt?(text: string): number | undefined;
  /**
   * Why no model stands behind this embedder, when none does (it could not be
   * found or read): every call that needs a vector fails with it.
   */
  readonly unavailable?: Error;
}

/** Documents longer than the model reads, cut to fit: how many of how many. */
export interface Truncation {
  /** The model's input limit, in tokens, special tokens included. */
  maxTokens: number;
  /** Documents the model embedded (cache hits not included). */
  texts: number;
  /** Of those, the ones whose end was cut. */
  truncated: number;
}
