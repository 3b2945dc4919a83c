import assert from "node:assert/strict";
import { EmbedderError } from "../../src/embed/embedder.ts";
import { HttpEmbedder } from "../../src/embed/http_embedder.ts";
import { INTERACTIVE } from "../../src/embed/http_retry.ts";
import { embedderContract, withCleanup } from "./embedder_contract.ts";
import { hashVector } from "./fake_embedder.ts";
import { closedPort, localServer } from "./local_server.ts";

const FAST = { baseDelayMs: 1 };

/** An OpenAI-style `/v1/embeddings` answering vectors of `dims`. */
function embeddings(dims: number) {
  return async (request: Request): Promise<Response> => {
    const body = await request.json() as { input: string[] };
    return Response.json({
      object: "list",
      data: body.input.map((text, index) => ({
        object: "embedding",
        index,
        embedding: [...hashVector(text, dims)],
      })),
    });
  };
}

embedderContract("HttpEmbedder", () => {
  const server = localServer(embeddings(16));
  const embedder = new HttpEmbedder({
    baseUrl: `${server.url}/v1`,
    model: "m",
    dims: 16,
    retry: FAST,
  });
  return Promise.resolve(withCleanup(embedder, () => server[Symbol.asyncDispose]()));
});

Deno.test("HttpEmbedder posts the model, inputs and bearer key to /v1/embeddings", async () => {
  await using server = localServer(embeddings(4));
  const embedder = new HttpEmbedder({
    baseUrl: `${server.url}/v1/`,
    model: "text-embedding-3-small",
    apiKey: "sk-test",
    dims: 4,
    queryPrefix: "query: ",
  });
  const [vector] = await embedder.embedDocuments(["hello"]);
  assert.deepEqual(vector, hashVector("hello", 4));
  await embedder.embedQuery("hi");
  const [first, second] = server.requests;
  assert.equal(new URL(first!.url).pathname, "/v1/embeddings");
  assert.equal(first!.headers.get("authorization"), "Bearer sk-test");
  assert.deepEqual(first!.json(), {
    model: "text-embedding-3-small",
    input: ["hello"],
    encoding_format: "float",
  });
  assert.deepEqual((second!.json() as { input: string[] }).input, ["query: hi"]);
});

Deno.test("HttpEmbedder retries 429 and 5xx with backoff, then succeeds", async () => {
  const statuses = [429, 503, 500];
  const answer = embeddings(4);
  await using server = localServer((request) => {
    const status = statuses.shift();
    return status ? new Response("busy", { status }) : answer(request);
  });
  const embedder = new HttpEmbedder({ baseUrl: server.url, model: "m", dims: 4, retry: FAST });
  const vectors = await embedder.embedDocuments(["a", "b"]);
  assert.equal(vectors.length, 2);
  assert.equal(server.requests.length, 4);
});

Deno.test("HttpEmbedder reports a refused API key without retrying", async () => {
  await using server = localServer(() => new Response("invalid key", { status: 401 }));
  const embedder = new HttpEmbedder({
    baseUrl: server.url,
    model: "m",
    apiKey: "bad",
    dims: 4,
    retry: FAST,
  });
  await assert.rejects(embedder.embedDocuments(["a"]), (error: unknown) => {
    assert.ok(error instanceof EmbedderError);
    assert.equal(error.code, "auth");
    assert.match(error.message, /refused the API key \(HTTP 401\)/);
    return true;
  });
  assert.equal(server.requests.length, 1);
});

Deno.test("HttpEmbedder reports vectors of the wrong width and what to set", async () => {
  await using server = localServer(embeddings(8));
  const embedder = new HttpEmbedder({ baseUrl: server.url, model: "m", dims: 4, retry: FAST });
  await assert.rejects(embedder.embedQuery("a"), (error: unknown) => {
    assert.ok(error instanceof EmbedderError);
    assert.equal(error.code, "wrong_dims");
    assert.match(error.message, /returned 8 dimensions, configured 4; set dims to 8/);
    return true;
  });
});

Deno.test("HttpEmbedder reports an unreachable host after its retries", async () => {
  const port = closedPort();
  const embedder = new HttpEmbedder({
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model: "m",
    dims: 4,
    retry: FAST,
  });
  await assert.rejects(embedder.embedDocuments(["a"]), (error: unknown) => {
    assert.ok(error instanceof EmbedderError);
    assert.equal(error.code, "unreachable");
    assert.match(
      error.message,
      new RegExp(`could not reach http://127.0.0.1:${port} after 5 attempts`),
    );
    return true;
  });
});

Deno.test("HttpEmbedder gives up on a server that never answers within its deadline, queries within seconds", async () => {
  const waiting: Array<(response: Response) => void> = [];
  const server = localServer(() => new Promise((resolve) => waiting.push(resolve)));
  try {
    const retry = { baseDelayMs: 1, timeoutMs: 150, deadlineMs: 400 };
    const embedder = new HttpEmbedder({ baseUrl: server.url, model: "m", dims: 4, retry });
    for (const call of [() => embedder.embedQuery("q"), () => embedder.embedDocuments(["d"])]) {
      const outcome = await Promise.race([
        call().then(() => "answered", (error) => error),
        new Promise((resolve) => setTimeout(() => resolve("still waiting"), 5_000)),
      ]);
      assert.ok(outcome instanceof EmbedderError, String(outcome));
      assert.equal(outcome.code, "unreachable");
      assert.match(outcome.message, /after [1-3] attempts .*TimeoutError/);
    }
    assert.deepEqual(INTERACTIVE, { tries: 2, timeoutMs: 5_000, deadlineMs: 10_000 });
  } finally {
    for (const answer of waiting) answer(new Response("late"));
    await server[Symbol.asyncDispose]();
  }
});
