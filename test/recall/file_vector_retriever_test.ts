import assert from "node:assert/strict";
import { fileVectorRetriever } from "../../src/recall/retrievers/file_vector_retriever.ts";
import { kindsOf } from "../../src/recall/path_priors.ts";
import type { Ask, Candidates } from "../../src/recall/retriever.ts";
import type { RecallRequest, VectorSearch } from "../../src/recall/types.ts";

/** Files whose distances depend on which window asks (the first number of its vector). */
const files: VectorSearch = {
  search: () => [],
  searchFiles: (query) => {
    const window = query[0];
    return [
      { path: "db.py", distance: window === 1 ? 0.3 : 0.1, chunks: ["db:1", "db:2", "db:3"] },
      { path: "cli.py", distance: 0.2, chunks: ["cli:1"] },
      { path: "unlisted.py", distance: 0.05, chunks: ["unlisted:1"] },
      ...Array.from({ length: 20 }, (_, i) => ({
        path: `test_${i}.py`,
        distance: 0.4 + i / 100,
        chunks: [`test_${i}:1`],
      })),
    ];
  },
};

/** What the vector and lexical lists found: the file signal ranks only these. */
const earlier = new Map([
  ["vector", new Map([["code", [{ ids: ["db:3"], evidence: 0.2, score: 0.2 }]]])],
  [
    "lexical",
    new Map([[
      "code",
      [
        { ids: ["db:1"], evidence: 1, score: 9 },
        { ids: ["cli:1"], evidence: 0.5, score: 4 },
        ...Array.from(
          { length: 20 },
          (_, i) => ({ ids: [`test_${i}:1`], evidence: 0.1, score: 1 }),
        ),
      ],
    ]]),
  ],
]) as ReadonlyMap<"vector" | "lexical", Candidates>;

function ask(request: Partial<RecallRequest>, vectors: Float32Array[] | undefined): Ask {
  return {
    request: { query: "q", sources: ["code"], limit: 10, mode: "hybrid", ...request },
    overfetch: () => 1,
    keep: () => true,
    kindsOf: (_source, id) => id.startsWith("test_") ? kindsOf(`tests/${id}.py`) : [],
    asked: new Set(),
    vectors: Promise.resolve(vectors),
    leftInContext: new Set(),
    weightsOf: () => ({ vector: 1, lexical: 1, context: 1, graph: 1, mention: 1, file: 1 }),
    note: () => {},
  };
}

Deno.test("the file-vector retriever lends each near file's rank to the chunks the other lists found in it", async () => {
  const found = await fileVectorRetriever(files).retrieve(
    ask({}, [new Float32Array([1]), new Float32Array([2])]),
    earlier,
  );
  const code = found.get("code")!;
  // db.py at its nearer window's distance; unlisted.py has no chunk the other lists found.
  assert.deepEqual(code.slice(0, 2).map((c) => [c.ids, c.evidence]), [
    [["db:1", "db:3"], 0.1],
    [["cli:1"], 0.2],
  ]);
  // Ten files recall may lower are admitted apart from the product's code.
  assert.equal(code.filter((c) => c.ids[0]!.startsWith("test_")).length, 10);
});

Deno.test("the file-vector retriever says nothing without code, vectors or meaning", async () => {
  const retriever = fileVectorRetriever(files);
  const vectors = [new Float32Array([1])];
  for (
    const [request, windows] of [
      [{ sources: ["memory", "turn"] }, vectors],
      [{ mode: "lexical" }, vectors],
      [{ mode: "vector" }, vectors],
      [{}, undefined],
    ] as const
  ) {
    const found = await retriever.retrieve(
      ask(request as Partial<RecallRequest>, windows),
      earlier,
    );
    assert.equal(found.size, 0);
  }
});
