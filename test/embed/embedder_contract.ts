import assert from "node:assert/strict";
import type { Embedder } from "../../text/embedder.ts";

function norm(vector: Float32Array): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}

/** The behaviour every {@linkcode Embedder} must show, run against each implementation. */
export function embedderContract(name: string, open: () => Promise<Embedder>): void {
  Deno.test(`${name}: embedDocuments() returns one unit vector of dims per text, in order`, async () => {
    const embedder = await open();
    try {
      const texts = ["alpha beta", "a much longer text about connection pools and databases", "z"];
      const vectors = await embedder.embedDocuments(texts);
      assert.equal(vectors.length, texts.length);
      for (const vector of vectors) {
        assert.equal(vector.length, embedder.dims);
        assert.ok(Math.abs(norm(vector) - 1) < 1e-4, `norm ${norm(vector)}`);
      }
      const [single] = await embedder.embedDocuments([texts[1]!]);
      assert.ok(
        single!.every((x, i) => Math.abs(x - vectors[1]![i]!) < 1e-5),
        "order or batching changed a vector",
      );
    } finally {
      await embedder.close();
    }
  });

  Deno.test(`${name}: identical texts give identical vectors; no texts give none`, async () => {
    const embedder = await open();
    try {
      const [a, b] = await embedder.embedDocuments(["same text", "same text"]);
      assert.deepEqual(a, b);
      assert.deepEqual(await embedder.embedDocuments([]), []);
    } finally {
      await embedder.close();
    }
  });

  Deno.test(`${name}: embedQuery() returns a unit vector of dims`, async () => {
    const embedder = await open();
    try {
      const query = await embedder.embedQuery("how are connections pooled?");
      assert.equal(query.length, embedder.dims);
      assert.ok(Math.abs(norm(query) - 1) < 1e-4);
      assert.ok(embedder.id.length > 0);
    } finally {
      await embedder.close();
    }
  });
}

/** Wraps `embedder` so that closing it also runs `cleanup` (e.g. removes a temp dir or server). */
export function withCleanup(embedder: Embedder, cleanup: () => PromiseLike<void>): Embedder {
  return {
    id: embedder.id,
    dims: embedder.dims,
    embedDocuments: (texts) => embedder.embedDocuments(texts),
    embedQuery: (text) => embedder.embedQuery(text),
    close: async () => {
      await embedder.close();
      await cleanup();
    },
  };
}
