import assert from "node:assert/strict";
import { join } from "node:path";
import { modelHub, shippedManifest } from "../embed/model_hub.ts";
import { cli, tempDir } from "../helpers.ts";

/** Every file under `dir`, relative, sorted ([] when `dir` does not exist). */
async function filesUnder(dir: string, prefix = ""): Promise<string[]> {
  const entries = await Array.fromAsync(Deno.readDir(dir)).catch(() => []);
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory
        ? filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`)
        : [`${prefix}${entry.name}`]
    ),
  );
  return nested.flat().sort();
}

Deno.test("config.json names a hub model: downloaded into the store's cache on first use, offline after", async () => {
  await using tmp = await tempDir();
  await using hub = modelHub("org/minilm");
  const store = join(tmp.path, "store");
  await Deno.mkdir(store);
  const manifest = await shippedManifest();
  await Deno.writeTextFile(
    join(store, "config.json"),
    JSON.stringify({ embedder: { kind: "onnx", model: "org/minilm", hub_url: hub.url, manifest } }),
  );
  const run = (...args: string[]) => cli(["--store", store, ...args]);

  const remembered = await run("remember", "Deploys happen on Tuesday mornings");
  assert.equal(remembered.code, 0, remembered.stderr);
  assert.deepEqual(
    hub.requests.map((r) => new URL(r.url).pathname).sort(),
    ["LICENSE", "model.onnx", "tokenizer.json"].map((file) => `/org/minilm/resolve/main/${file}`),
  );
  assert.deepEqual(await filesUnder(join(store, "cache", "models")), [
    "org/minilm/LICENSE",
    "org/minilm/manifest.json",
    "org/minilm/model.onnx",
    "org/minilm/tokenizer.json",
  ]);

  const found = await run("search", "when do we ship?", "--format", "json");
  assert.equal(found.code, 0, found.stderr);
  assert.equal(JSON.parse(found.stdout).results[0].content, "Deploys happen on Tuesday mornings");
  assert.equal(hub.requests.length, 3, "the second open used the cached model");
});

Deno.test("a hub model whose file does not match its sha256 is refused, and nothing is installed", async () => {
  await using tmp = await tempDir();
  await using hub = modelHub("org/minilm");
  const store = join(tmp.path, "store");
  const run = (...args: string[]) => cli(["--store", store, ...args]);
  assert.equal((await run("remember", "Deploys happen on Tuesday mornings")).code, 0);
  const manifest = await shippedManifest();
  manifest.files["tokenizer.json"] = "0".repeat(64);
  await Deno.writeTextFile(
    join(store, "config.json"),
    JSON.stringify({ embedder: { kind: "onnx", model: "org/minilm", hub_url: hub.url, manifest } }),
  );
  const reembedded = await run("reembed");
  assert.equal(reembedded.code, 1);
  assert.match(
    reembedded.stderr,
    /re-embedding stopped with 1 events left .* old vectors are kept/,
  );
  const refused = await run("recall", "deploys");
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /could not install the embedding model org\/minilm from http:\/\/127\.0\.0\.1:\d+: downloaded tokenizer\.json has sha256 [0-9a-f]{64}, expected 0{64}.*config\.json, check that embedder\.manifest\.files/,
  );
  assert.deepEqual(await filesUnder(join(store, "cache", "models")), []);
  assert.ok(!(await filesUnder(join(store, "cache"))).some((file) => file.endsWith(".part")));

  const unnamed = { embedder: { kind: "onnx", manifest } };
  await Deno.writeTextFile(join(store, "config.json"), JSON.stringify(unnamed));
  const invalid = await run("status");
  assert.equal(invalid.code, 1);
  assert.match(invalid.stderr, /embedder\.model: name the hub model the manifest describes/);
});
