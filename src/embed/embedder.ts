/**
 * The one interface every embedding backend implements (ONNX in a worker, an
 * HTTP provider, the cache wrapper), so the vectors projection and recall do
 * not care where vectors come from.
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

/** What went wrong, so callers (and tests) can branch without parsing messages. */
export type EmbedderErrorCode =
  | "model_missing"
  | "model_invalid"
  | "model_damaged"
  | "inference_failed"
  | "closed"
  | "auth"
  | "unreachable"
  | "bad_response"
  | "wrong_dims"
  | "download_failed";

/** An embedding failure with a message that says what to do about it. */
export class EmbedderError extends Error {
  override name = "EmbedderError";

  constructor(readonly code: EmbedderErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** True when `error` says the embedding model cannot be used now (missing, damaged, unreachable). */
export function isModelFailure(error: unknown): error is EmbedderError {
  return error instanceof EmbedderError && error.code !== "closed";
}

/** Scales `vector` in place to unit length (a zero vector stays zero) and returns it. */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) { for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm; }
  return vector;
}
