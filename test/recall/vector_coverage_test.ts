import assert from "node:assert/strict";
import { askOf, type RankingDeps } from "../../src/recall/ask.ts";
import { CODE_WEIGHTS, MEMORY_WEIGHTS } from "../../src/recall/fuse.ts";
import type { RecallRequest } from "../../src/recall/types.ts";

/** A store where 100 chunks of shop have their vectors and 300 wait (1,000 of its tests too). */
const deps: RankingDeps = {
  vectorLag: () =>
    Promise.resolve({
      pending: [
        { source: "code", project: "shop", documents: 300 },
        { source: "code", project: "shop", documents: 1000, lowered: true },
      ],
    }),
  vectorsHeld: (source, project) => (source === "code" && project === "shop" ? 100 : 50),
};

function request(mode: RecallRequest["mode"]): RecallRequest {
  return {
    query: "where are cards charged",
    sources: ["code", "memory"],
    project: "shop",
    limit: 8,
    mode,
  };
}

Deno.test("while vectors are computed, the signals read from them count in proportion to the documents that have one", async () => {
  const ask = await askOf(deps, request("hybrid"), () => {});
  const code = ask.weightsOf("code");
  assert.equal(
    code.vector,
    CODE_WEIGHTS.vector! * 0.25,
    "100 of 400: the tests waiting are not counted",
  );
  assert.equal(code.file, CODE_WEIGHTS.file! * 0.25);
  assert.equal(code.lexical, 0.2, "words count in full");
  assert.equal(
    ask.weightsOf("memory").vector,
    MEMORY_WEIGHTS.vector,
    "every memory has its vector",
  );
  assert.equal(ask.vectorLag?.pending.length, 2, "the vector signal's note reads the same lag");
});

Deno.test("asked by words alone, or with every vector in, the weights are the source's own", async () => {
  const lexical = await askOf(deps, request("lexical"), () => {});
  assert.equal(lexical.weightsOf("code").vector, CODE_WEIGHTS.vector);
  assert.equal(lexical.vectorLag, undefined);
  const caughtUp = await askOf(
    { ...deps, vectorLag: () => Promise.resolve({ pending: [] }) },
    request("hybrid"),
    () => {},
  );
  assert.equal(caughtUp.weightsOf("code").vector, CODE_WEIGHTS.vector);
});
