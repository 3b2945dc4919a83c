import assert from "node:assert/strict";
import { EmbedderError } from "../../src/embed/embedder.ts";
import { HttpReranker } from "../../src/embed/reranker.ts";
import { localServer } from "./local_server.ts";

Deno.test("HttpReranker.rerank() posts {query, texts} to /rerank and returns scores in doc order", async () => {
  await using server = localServer(async (request) => {
    const { query, texts } = await request.json() as { query: string; texts: string[] };
    // Scored by shared words with the query; answered best first, as TEI does.
    const words = new Set(query.split(" "));
    return Response.json(
      texts.map((text, index) => ({
        index,
        score: text.split(" ").filter((w) => words.has(w)).length,
      }))
        .sort((a, b) => b.score - a.score),
    );
  });
  const reranker = new HttpReranker({ baseUrl: server.url, model: "bge-reranker-base" });
  const scores = await reranker.rerank("connection pool", [
    "cake recipe",
    "a connection pool",
    "pool",
  ]);
  assert.deepEqual(scores, [0, 2, 1]);
  assert.equal(new URL(server.requests[0]!.url).pathname, "/rerank");
  assert.deepEqual(await reranker.rerank("q", []), []);
  assert.equal(server.requests.length, 1);
  assert.equal(reranker.id, "http:bge-reranker-base");
});

Deno.test("HttpReranker.rerank() rejects an answer that leaves texts unscored", async () => {
  await using server = localServer(() => Response.json([{ index: 0, score: 1 }]));
  const reranker = new HttpReranker({ baseUrl: server.url, model: "m" });
  await assert.rejects(reranker.rerank("q", ["a", "b"]), (error: unknown) => {
    assert.ok(error instanceof EmbedderError);
    assert.match(error.message, /scored 1 of 2 texts/);
    return true;
  });
});

Deno.test("HttpReranker.rerank() reports a refused key", async () => {
  await using server = localServer(() => new Response("no", { status: 403 }));
  const reranker = new HttpReranker({ baseUrl: server.url, model: "m", apiKey: "k" });
  await assert.rejects(reranker.rerank("q", ["a"]), /refused the API key \(HTTP 403\)/);
});
