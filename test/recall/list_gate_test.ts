import assert from "node:assert/strict";
import { askOf } from "../../src/recall/ask.ts";
import { CANDIDATES, listGate } from "../../src/recall/retriever.ts";
import { lexicalRetriever } from "../../src/recall/retrievers/lexical_retriever.ts";
import type { LexicalSearch, RecallRequest } from "../../src/recall/types.ts";

const request: RecallRequest = { query: "card", sources: ["code"], limit: 10, mode: "lexical" };
/** Chunk `dN` is a page of docs, `sN` the product's code. */
const codePath = (id: string) => id.startsWith("d") ? `docs/page_${id}.md` : `src/${id}.js`;

Deno.test("listGate() admits as many of the product's code and, apart, of the files recall may lower", async () => {
  const ask = await askOf({ codePath }, request, () => {});
  const admit = listGate(ask, "code", 2);
  const ids = ["d1", "d2", "d3", "s1", "d4", "s2", "s3"];
  assert.deepEqual(ids.filter(admit), ["d1", "d2", "s1", "s2"]);
});

Deno.test("the lexical retriever keeps the code when more pages of docs than it lists match better", async () => {
  const pages = Array.from({ length: 3 * CANDIDATES }, (_, i) => `d${i}`);
  const hits = [...pages, "s1", "s2"].map((id, i) => ({
    source: "code" as const,
    id,
    score: 100 - i / 10,
    share: 1 - i / 1000,
  }));
  const lexical: LexicalSearch = {
    search: (_query, options) => hits.slice(0, options.limit),
    searchContext: () => [],
    termWeight: () => 0,
  };
  const ask = await askOf({ codePath }, request, () => {});
  const found = await lexicalRetriever(lexical).retrieve(ask, new Map());
  const ids = found.get("code")!.map((candidate) => candidate.ids[0]);
  assert.deepEqual(ids.slice(-2), ["s1", "s2"]);
  assert.equal(ids.length, CANDIDATES + 2);
});
