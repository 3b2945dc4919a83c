import { createHash } from "node:crypto";
import type { Embedder } from "../../text/embedder.ts";
import { normalize } from "../../src/embed/embedder.ts";

/** A deterministic vector for a text, derived from its hash (for fakes and test servers). */
export function hashVector(text: string, dims: number): Float32Array {
  const digest = createHash("sha256").update(text).digest();
  return normalize(Float32Array.from({ length: dims }, (_, i) => digest[i % 32]! - 127.5 + i));
}

/** An in-memory embedder that records the texts and queries it was asked to embed. */
export class FakeEmbedder implements Embedder {
  readonly id = "fake-model";
  embedded: string[] = [];
  queries: string[] = [];
  closed = false;

  constructor(readonly dims = 8) {}

  embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    this.embedded.push(...texts);
    return Promise.resolve(texts.map((text) => hashVector(text, this.dims)));
  }

  embedQuery(text: string): Promise<Float32Array> {
    this.queries.push(text);
    return Promise.resolve(hashVector(`query: ${text}`, this.dims));
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
