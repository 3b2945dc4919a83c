import assert from "node:assert/strict";
import { vectorRetriever } from "../../src/recall/retrievers/vector_retriever.ts";
import type { Ask } from "../../src/recall/retriever.ts";
import type { Source, VectorSearch } from "../../src/recall/types.ts";

/** An index whose answer depends on which window asks (the first number of its vector). */
const index: VectorSearch = {
  search: (_source: Source, query: Float32Array) =>
    query[0] === 1
      ? [{ id: "code:a", distance: 0.1 }, { id: "code:b", distance: 0.4 }, {
        id: "code:far",
        distance: 0.7,
      }]
      : [{ id: "code:b", distance: 0.2 }, { id: "code:c", distance: 0.3 }],
  searchFiles: () => [],
};

function ask(vectors: Float32Array[]): Ask {
  return {
    request: { query: "q", sources: ["code"], limit: 10, mode: "hybrid" },
    overfetch: () => 1,
    keep: () => true,
    kindsOf: () => [],
    asked: new Set(),
    vectors: Promise.resolve(vectors),
    leftInContext: new Set(),
    weightsOf: () => ({ vector: 1, lexical: 1, context: 1, graph: 1, mention: 1, file: 1 }),
    note: () => {},
  };
}

Deno.test("the vector retriever ranks what a long question's windows found at each one's nearest window", async () => {
  const found = await vectorRetriever({ vectors: index }).retrieve(
    ask([new Float32Array([1]), new Float32Array([2])]),
    new Map(),
  );
  assert.deepEqual(found.get("code")?.map((c) => [c.ids[0], c.evidence]), [
    ["a", 0.1],
    ["b", 0.2],
    ["c", 0.3],
  ]);
});

Deno.test("the vector retriever with one window keeps its order and drops what is too far", async () => {
  const found = await vectorRetriever({ vectors: index }).retrieve(
    ask([new Float32Array([1])]),
    new Map(),
  );
  assert.deepEqual(found.get("code")?.map((c) => c.ids[0]), ["a", "b"]);
});
