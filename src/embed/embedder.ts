/**
 * What every embedding backend shares beyond its interface
 * (`text/embedder.ts`): the error it fails with, and unit-length vectors.
 * @module
 */

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
