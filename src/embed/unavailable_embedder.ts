import type { Embedder } from "../../text/embedder.ts";
import type { EmbedderError } from "./embedder.ts";

/**
 * Stands in for an embedding model that cannot be found or read, so a store
 * still opens: words-only search, listing and status keep working, and every
 * call that needs a vector fails with the reason and what to fix.
 */
export class UnavailableEmbedder implements Embedder {
  readonly id = "unavailable";
  readonly dims = 0;

  constructor(readonly reason: EmbedderError) {}

  /** Its reason: what tells the vectors projection that no model stands behind it. */
  get unavailable(): EmbedderError {
    return this.reason;
  }

  embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.length === 0 ? Promise.resolve([]) : Promise.reject(this.reason);
  }

  embedQuery(): Promise<Float32Array> {
    return Promise.reject(this.reason);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
