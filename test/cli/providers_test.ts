import assert from "node:assert/strict";
import { join } from "node:path";
import { localServer } from "../embed/local_server.ts";
import { bagOfWords as embed } from "../embed/bag_of_words.ts";
import { shippedIdPattern } from "../embed/model_hub.ts";
import { tempDir } from "../helpers.ts";
import { cliHere } from "./in_process.ts";

Deno.test("config.json chooses an OpenAI-compatible embedder and a reranker; reembed moves a store to another model", async () => {
  await using tmp = await tempDir();
  await using embeddings = localServer(async (request) => {
    const { input } = await request.json() as { input: string[] };
    return Response.json({ data: input.map((text, index) => ({ index, embedding: embed(text) })) });
  });
  await using reranker = localServer(async (request) => {
    const { texts } = await request.json() as { texts: string[] };
    // Prefers the text that mentions "tuesday", wherever fusion put it.
    return Response.json(
      texts.map((text, index) => ({ index, score: text.includes("Tuesday") ? 10 : 1 })),
    );
  });
  const store = join(tmp.path, "store");
  await Deno.mkdir(store);
  const config = (extra: Record<string, unknown>) =>
    Deno.writeTextFile(join(store, "config.json"), JSON.stringify(extra));
  await config({
    embedder: { kind: "http", base_url: `${embeddings.url}/v1`, model: "bow", dims: 16 },
  });
  const run = (...args: string[]) => cliHere(["--store", store, ...args]);

  assert.equal((await run("remember", "Deploys happen on Tuesday mornings")).code, 0);
  assert.equal((await run("remember", "Deploy scripts live in ops/deploy")).code, 0);
  assert.ok(embeddings.requests.length > 0, "the HTTP embedder was used");
  assert.match((await run("status")).stdout, /model +http:bow/);
  const meaning = await run("search", "deploys tuesday mornings", "--format", "json");
  assert.equal(meaning.code, 0, meaning.stderr);
  assert.equal(JSON.parse(meaning.stdout).results[0].content, "Deploys happen on Tuesday mornings");

  await config({
    embedder: { kind: "http", base_url: `${embeddings.url}/v1`, model: "bow", dims: 16 },
    rerank: { kind: "http", base_url: reranker.url, model: "judge", top: 5 },
  });
  const reranked = await run("recall", "deploy scripts", "--format", "debug");
  assert.equal(reranked.code, 0, reranked.stderr);
  assert.match(reranked.stdout.split("\n")[0]!, /rerank 10/);
  assert.ok(reranker.requests.length > 0);

  await config({});
  const refused = await run("recall", "deploy");
  assert.equal(refused.code, 1);
  const shipped = await shippedIdPattern();
  assert.match(
    refused.stderr,
    new RegExp(`built with http:bow, not ${shipped}; .*\`cairn --store \\S+ reembed`),
  );
  const rebuilt = await run("reembed");
  assert.equal(rebuilt.code, 0, rebuilt.stderr);
  assert.match(rebuilt.stdout, new RegExp(`vectors rebuilt with ${shipped} .*2 memories`));
  const after = await run("search", "how and when do we deploy?", "--format", "json");
  assert.equal(after.code, 0, after.stderr);
  assert.equal(JSON.parse(after.stdout).results.length, 2);

  await Deno.writeTextFile(join(store, "config.json"), "{ not json");
  const broken = await run("status");
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /config\.json is not valid JSON/);
});

Deno.test("a setting config.json does not know is refused with where it belongs, never ignored", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  await Deno.mkdir(store);
  const statusWith = async (config: unknown) => {
    await Deno.writeTextFile(join(store, "config.json"), JSON.stringify(config));
    return await cliHere(["--store", store, "status"]);
  };

  const misplaced = await statusWith({ model_dir: "/models/int8" });
  assert.equal(misplaced.code, 1);
  assert.match(
    misplaced.stderr,
    /unknown key "model_dir" \(model_dir belongs under "embedder"/,
  );

  const misspelt = await statusWith({ embedder: { kind: "onnx", modeldir: "/models/int8" } });
  assert.equal(misspelt.code, 1);
  assert.match(
    misspelt.stderr,
    /embedder has no key "modeldir" \(did you mean "model_dir" for "modeldir"\?\)/,
  );
  const top = await statusWith({ embeder: { kind: "onnx" } });
  assert.match(top.stderr, /unknown key "embeder" \(did you mean "embedder" for "embeder"\?\)/);

  const missing = join(tmp.path, "no-model");
  const noModel = await statusWith({ embedder: { kind: "onnx", model_dir: missing } });
  assert.match(
    noModel.stdout,
    new RegExp(
      `no embedding model at ${missing} \\(manifest\\.json not found\\): it is the embedder's ` +
        `model_dir in ${join(store, "config.json")}; give a folder that holds a model there`,
    ),
  );

  const rerank = { kind: "http", base_url: "http://127.0.0.1:9/", model: "judge", tpo: 5 };
  const reranker = await statusWith({ rerank });
  assert.equal(reranker.code, 1);
  assert.match(reranker.stderr, /rerank has no key "tpo" \(did you mean "top" for "tpo"\?\)/);
});
