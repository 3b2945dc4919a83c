import assert from "node:assert/strict";
import { join } from "node:path";
import type { DownloadProgress } from "../../src/embed/hub_download.ts";
import { modelId } from "../../src/embed/manifest.ts";
import { UserError } from "../../src/errors.ts";
import { hubEmbedder, modelCacheDir } from "../../src/service/hub_embedder.ts";
import { closedPort, localServer } from "../embed/local_server.ts";
import { modelHub, shippedManifest } from "../embed/model_hub.ts";
import { tempDir } from "../helpers.ts";

Deno.test("hubEmbedder() downloads the model on first use with progress; a later one embeds offline", async () => {
  await using store = await tempDir();
  const manifest = await shippedManifest();
  const progress: DownloadProgress[] = [];
  {
    await using hub = modelHub("org/minilm");
    const embedder = hubEmbedder(
      { model: "org/minilm", hub_url: hub.url, manifest },
      store.path,
      (p) => progress.push(p),
    );
    assert.equal(embedder.id, modelId(manifest));
    assert.equal(embedder.dims, 384);
    assert.equal(hub.requests.length, 0, "nothing is fetched before the model is used");
    try {
      assert.equal((await embedder.embedQuery("connection pools")).length, 384);
    } finally {
      await embedder.close();
    }
    assert.equal(hub.requests.length, 3);
  }
  const sizes = new Map(progress.map((p) => [p.file, p]));
  assert.deepEqual([...sizes.keys()].sort(), ["LICENSE", "model.onnx", "tokenizer.json"]);
  for (const last of sizes.values()) assert.equal(last.received, last.total);
  const folder = join(modelCacheDir(store.path), "org", "minilm");
  assert.deepEqual(JSON.parse(await Deno.readTextFile(join(folder, "manifest.json"))), manifest);

  // The hub is gone: a new embedder finds the model in the cache.
  const offline = hubEmbedder(
    { model: "org/minilm", hub_url: `http://127.0.0.1:${closedPort()}`, manifest },
    store.path,
  );
  try {
    assert.equal((await offline.embedQuery("connection pools")).length, 384);
  } finally {
    await offline.close();
  }
});

Deno.test("hubEmbedder() says which setting to fix when the hub is unreachable, lacks a file or serves other bytes", async () => {
  await using store = await tempDir();
  const manifest = await shippedManifest();
  const refusal = async (hubUrl: string, model: string, pattern: RegExp) => {
    const embedder = hubEmbedder({ model, hub_url: hubUrl, manifest }, store.path, undefined);
    await assert.rejects(embedder.embedQuery("x"), (error: unknown) => {
      assert.ok(error instanceof UserError, String(error));
      assert.match(error.message, pattern);
      assert.match(error.message, /config\.json, check .*embedder\.(model|manifest)/);
      return true;
    });
    await embedder.close();
  };
  await refusal(
    `http://127.0.0.1:${closedPort()}`,
    "org/minilm",
    /could not install the embedding model org\/minilm from http:\/\/127\.0\.0\.1:\d+: could not download .* after 5 attempts/,
  );
  await using hub = modelHub("org/minilm");
  await refusal(hub.url, "org/other", /org\/other\/resolve\/main\/model\.onnx answered HTTP 404/);
  await using liar = localServer(() => new Response("not the model"));
  await refusal(liar.url, "org/minilm", /downloaded model\.onnx has sha256 [0-9a-f]{64}, expected/);
  assert.equal(await Deno.stat(modelCacheDir(store.path)).catch(() => null), null);
});
