import assert from "node:assert/strict";
import { join } from "node:path";
import { shippedModelDir } from "../../src/embed/load.ts";
import { modelHub, nestedLayout, shippedIdPattern, shippedManifest } from "../embed/model_hub.ts";
import { tempDir } from "../helpers.ts";
import { cliHere } from "./in_process.ts";

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
  const run = (...args: string[]) => cliHere(["--store", store, ...args]);

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

  const found = await run("search", "when do deploys happen?", "--format", "json");
  assert.equal(found.code, 0, found.stderr);
  assert.equal(JSON.parse(found.stdout).results[0].content, "Deploys happen on Tuesday mornings");
  assert.equal(hub.requests.length, 3, "the second open used the cached model");
});

Deno.test("a hub model whose file does not match its sha256 is refused, and nothing is installed", async () => {
  await using tmp = await tempDir();
  await using hub = modelHub("org/minilm");
  const store = join(tmp.path, "store");
  const run = (...args: string[]) => cliHere(["--store", store, ...args]);
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

/** Flips one bit of the byte at `at` in `path`. */
async function damage(path: string, at = 100): Promise<void> {
  const bytes = await Deno.readFile(path);
  bytes[at] = bytes[at]! ^ 0x20;
  await Deno.writeFile(path, bytes);
}

Deno.test("cairn verify checks every file of config.json's model_dir, naming a damaged or missing one and what to do", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const model = join(tmp.path, "model");
  await Deno.mkdir(store);
  await Deno.mkdir(model);
  for await (const entry of Deno.readDir(shippedModelDir())) {
    await Deno.copyFile(join(shippedModelDir(), entry.name), join(model, entry.name));
  }
  await Deno.writeTextFile(
    join(store, "config.json"),
    JSON.stringify({ embedder: { kind: "onnx", model_dir: model } }),
  );
  const verify = () => cliHere(["--store", store, "verify"]);

  const intact = await verify();
  assert.equal(intact.code, 0, intact.stdout);
  assert.match(
    intact.stdout,
    new RegExp(`model: ${await shippedIdPattern()} in ${model}: 3 files check out`),
  );

  await damage(join(model, "tokenizer.json"));
  const damaged = await verify();
  assert.equal(damaged.code, 1);
  assert.match(
    damaged.stdout,
    new RegExp(
      `problem: model file ${model}/tokenizer\\.json is damaged \\(sha256 [0-9a-f]{64}, ` +
        `expected d241a60d[0-9a-f]{56}\\); replace it with an intact copy, or point ` +
        `embedder\\.model_dir in ${store}/config\\.json at another model folder`,
    ),
  );
  assert.match(damaged.stdout, /1 of 3 files missing or damaged/);
  assert.match(damaged.stdout, /^1 problem, each with what to do$/m);

  await Deno.remove(join(model, "LICENSE"));
  const missing = await verify();
  assert.equal(missing.code, 1);
  assert.match(
    missing.stdout,
    new RegExp(`problem: model file ${model}/LICENSE is missing; replace`),
  );
  assert.match(missing.stdout, /^2 problems, each with what to do$/m);
});

Deno.test("a hub model laid out in subfolders is installed as laid out; cairn verify drops a damaged download and the next use fetches it again", async () => {
  await using tmp = await tempDir();
  const { manifest, serves } = await nestedLayout();
  await using hub = modelHub("org/nested", serves);
  const store = join(tmp.path, "store");
  await Deno.mkdir(store);
  const configure = (model: unknown) =>
    Deno.writeTextFile(
      join(store, "config.json"),
      JSON.stringify({
        embedder: { kind: "onnx", model: "org/nested", hub_url: hub.url, manifest: model },
      }),
    );
  const run = (...args: string[]) => cliHere(["--store", store, ...args]);

  await configure({ ...manifest, model_file: "../model.onnx" });
  const escaping = await run("status");
  assert.equal(escaping.code, 1);
  assert.match(
    escaping.stderr,
    /embedder\.manifest\.model_file: "\.\.\/model\.onnx" leaves the model folder \(\.\.\); give a path inside it/,
  );

  await configure(manifest);
  const before = await run("verify");
  assert.equal(before.code, 0, before.stdout);
  assert.match(
    before.stdout,
    /model: org\/nested from http:\/\/127\.0\.0\.1:\d+, not downloaded yet/,
  );
  assert.equal(hub.requests.length, 0);

  assert.equal((await run("remember", "Deploys happen on Tuesday mornings")).code, 0);
  const folder = join(store, "cache", "models", "org", "nested");
  assert.deepEqual(await filesUnder(folder), [
    "LICENSE",
    "manifest.json",
    "onnx/model.onnx",
    "tokenizer.json",
  ]);
  const intact = await run("verify");
  assert.equal(intact.code, 0, intact.stdout);
  assert.match(intact.stdout, /model: org\/nested from .* in .*\/org\/nested: 3 files check out/);

  await damage(join(folder, "tokenizer.json"));
  const damaged = await run("verify");
  assert.equal(damaged.code, 1);
  assert.match(
    damaged.stdout,
    new RegExp(
      `problem: model file ${folder}/tokenizer\\.json is damaged \\(sha256 [0-9a-f]{64}, expected ` +
        `[0-9a-f]{64}\\); removed the damaged download; cairn downloads the file again from ` +
        `http://127\\.0\\.0\\.1:\\d+ on next use`,
    ),
  );

  const fetched = hub.requests.length;
  const found = await run("search", "when do deploys happen?", "--format", "json");
  assert.equal(found.code, 0, found.stderr);
  assert.equal(JSON.parse(found.stdout).results[0].content, "Deploys happen on Tuesday mornings");
  assert.deepEqual(
    hub.requests.slice(fetched).map((r) => new URL(r.url).pathname),
    ["/org/nested/resolve/main/tokenizer.json"],
  );
  const after = await run("verify");
  assert.equal(after.code, 0, after.stdout);
});
