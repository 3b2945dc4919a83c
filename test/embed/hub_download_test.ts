import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { EmbedderError } from "../../src/embed/embedder.ts";
import {
  checkInstalledModel,
  downloadModel,
  type DownloadProgress,
  installModel,
  uninstallDamaged,
} from "../../src/embed/hub_download.ts";
import type { ModelManifest } from "../../src/embed/manifest.ts";
import { tempDir } from "../helpers.ts";
import { localServer } from "./local_server.ts";

const FILES: Record<string, Uint8Array<ArrayBuffer>> = {
  "model.onnx": Uint8Array.from({ length: 200_000 }, (_, i) => (i * 31) % 251),
  "tokenizer.json": new TextEncoder().encode('{"model":{"type":"WordPiece"}}'),
  "LICENSE": new TextEncoder().encode("MIT License\n"),
};

function manifest(files: Record<string, Uint8Array> = FILES): ModelManifest {
  const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
  return {
    name: "tiny-model",
    source: "test",
    dims: 4,
    pooling: "cls",
    normalize: true,
    max_tokens: 16,
    query_prefix: "",
    document_prefix: "",
    quantization: "none",
    inputs: ["input_ids", "attention_mask"],
    output: "last_hidden_state",
    model_file: "model.onnx",
    tokenizer_file: "tokenizer.json",
    files: Object.fromEntries(Object.entries(files).map(([name, bytes]) => [name, sha(bytes)])),
  };
}

/**
 * A hub serving `files` (default FILES) under /org/tiny-model/resolve/main/,
 * honouring Range; `cut` bytes then drops.
 */
function hub(
  options: { cutFirstModelAt?: number; files?: Record<string, Uint8Array<ArrayBuffer>> } = {},
) {
  let cut = options.cutFirstModelAt;
  const files = options.files ?? FILES;
  return localServer((request) => {
    const match = new URL(request.url).pathname.match(/^\/org\/tiny-model\/resolve\/main\/(.+)$/);
    const bytes = match && Object.hasOwn(files, match[1]!) ? files[match[1]!] : undefined;
    if (!bytes) return new Response("not found", { status: 404 });
    const range = request.headers.get("range")?.match(/^bytes=(\d+)-$/);
    const start = range ? Number(range[1]) : 0;
    if (start >= bytes.length) return new Response(null, { status: 416 });
    const body = bytes.slice(start);
    const headers = { "content-length": String(body.length) };
    if (cut !== undefined && match![1] === "model.onnx") {
      const sent = body.subarray(0, cut);
      cut = undefined;
      // Sends part of the promised length, then errors: the connection drops mid-transfer.
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(sent.slice());
        },
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          controller.error(new Error("connection dropped"));
        },
      });
      return new Response(stream, { status: range ? 206 : 200, headers });
    }
    return range
      ? new Response(body, {
        status: 206,
        headers: {
          ...headers,
          "content-range": `bytes ${start}-${bytes.length - 1}/${bytes.length}`,
        },
      })
      : new Response(body, { headers });
  });
}

Deno.test("downloadModel() fetches every file, checks it and writes the manifest last", async () => {
  await using dir = await tempDir();
  await using server = hub();
  const progress: DownloadProgress[] = [];
  const model = await downloadModel({
    baseUrl: server.url,
    name: "org/tiny-model",
    cacheDir: dir.path,
    manifest: manifest(),
    onProgress: (p) => progress.push(p),
  });
  assert.equal(model, join(dir.path, "org", "tiny-model"));
  for (const [name, bytes] of Object.entries(FILES)) {
    assert.deepEqual(await Deno.readFile(join(model, name)), bytes);
  }
  assert.deepEqual(JSON.parse(await Deno.readTextFile(join(model, "manifest.json"))), manifest());
  const last = progress.findLast((p) => p.file === "model.onnx")!;
  assert.deepEqual(last, { file: "model.onnx", received: 200_000, total: 200_000 });
  // A second call finds everything intact and downloads nothing.
  const before = server.requests.length;
  await downloadModel({
    baseUrl: server.url,
    name: "org/tiny-model",
    cacheDir: dir.path,
    manifest: manifest(),
  });
  assert.equal(server.requests.length, before);
});

Deno.test("downloadModel() resumes an interrupted transfer with a Range request", async () => {
  await using dir = await tempDir();
  await using server = hub({ cutFirstModelAt: 70_000 });
  const model = await downloadModel({
    baseUrl: server.url,
    name: "org/tiny-model",
    cacheDir: dir.path,
    manifest: manifest(),
    baseDelayMs: 1,
  });
  assert.deepEqual(await Deno.readFile(join(model, "model.onnx")), FILES["model.onnx"]);
  const modelRequests = server.requests.filter((r) => r.url.endsWith("model.onnx"));
  assert.equal(modelRequests.length, 2);
  assert.equal(modelRequests[0]!.headers.get("range"), null);
  assert.equal(modelRequests[1]!.headers.get("range"), "bytes=70000-");
});

Deno.test("downloadModel() continues a .part left by an earlier run", async () => {
  await using dir = await tempDir();
  await using server = hub();
  const folder = join(dir.path, "org", "tiny-model");
  await Deno.mkdir(folder, { recursive: true });
  await Deno.writeFile(join(folder, "model.onnx.part"), FILES["model.onnx"]!.subarray(0, 123_456));
  await downloadModel({
    baseUrl: server.url,
    name: "org/tiny-model",
    cacheDir: dir.path,
    manifest: manifest(),
  });
  assert.deepEqual(await Deno.readFile(join(folder, "model.onnx")), FILES["model.onnx"]);
  const modelRequest = server.requests.find((r) => r.url.endsWith("model.onnx"))!;
  assert.equal(modelRequest.headers.get("range"), "bytes=123456-");
});

Deno.test("downloadModel() refuses a file whose sha256 differs from the manifest", async () => {
  await using dir = await tempDir();
  await using server = hub();
  const expected = manifest({ ...FILES, "LICENSE": new TextEncoder().encode("other") });
  await assert.rejects(
    downloadModel({
      baseUrl: server.url,
      name: "org/tiny-model",
      cacheDir: dir.path,
      manifest: expected,
    }),
    (error: unknown) => {
      assert.ok(error instanceof EmbedderError);
      assert.equal(error.code, "model_damaged");
      assert.match(error.message, /downloaded LICENSE has sha256 [0-9a-f]{64}, expected/);
      return true;
    },
  );
  const folder = join(dir.path, "org", "tiny-model");
  assert.equal(await Deno.stat(join(folder, "LICENSE")).catch(() => null), null);
  assert.equal(await Deno.stat(join(folder, "manifest.json")).catch(() => null), null);
});

Deno.test("downloadModel() names the file the hub does not have", async () => {
  await using dir = await tempDir();
  await using server = hub();
  await assert.rejects(
    downloadModel({
      baseUrl: server.url,
      name: "org/missing",
      cacheDir: dir.path,
      manifest: manifest(),
    }),
    /\/org\/missing\/resolve\/main\/model\.onnx answered HTTP 404/,
  );
});

Deno.test("installModel() reuses a folder holding this manifest without network, and replaces one holding another", async () => {
  await using dir = await tempDir();
  await using server = hub();
  const options = {
    baseUrl: server.url,
    name: "org/tiny-model",
    cacheDir: join(dir.path, "models"),
    stagingDir: join(dir.path, "downloads"),
    manifest: manifest(),
  };
  const model = await installModel(options);
  assert.equal(model, join(dir.path, "models", "org", "tiny-model"));
  assert.deepEqual(await Deno.readFile(join(model, "model.onnx")), FILES["model.onnx"]);
  assert.equal(
    await Deno.stat(join(dir.path, "downloads", "org", "tiny-model")).catch(() => null),
    null,
  );
  const fetched = server.requests.length;
  // The second call reads manifest.json only: no request, no hashing.
  assert.equal(await installModel(options), model);
  assert.equal(server.requests.length, fetched);
  const renamed = { ...manifest(), name: "tiny-model-v2" };
  await installModel({ ...options, manifest: renamed });
  assert.equal(server.requests.length, fetched + 3);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(join(model, "manifest.json"))), renamed);
});

Deno.test("installModel() puts nothing in the cache when a file is refused, and keeps the good ones to resume", async () => {
  await using dir = await tempDir();
  await using server = hub();
  const cacheDir = join(dir.path, "models");
  const stagingDir = join(dir.path, "downloads");
  const wrong = manifest({ ...FILES, "LICENSE": new TextEncoder().encode("other") });
  await assert.rejects(
    installModel({
      baseUrl: server.url,
      name: "org/tiny-model",
      cacheDir,
      stagingDir,
      manifest: wrong,
    }),
    /downloaded LICENSE has sha256/,
  );
  assert.equal(await Deno.stat(cacheDir).catch(() => null), null);
  const staged = join(stagingDir, "org", "tiny-model");
  assert.deepEqual((await Array.fromAsync(Deno.readDir(staged))).map((e) => e.name).sort(), [
    "model.onnx",
    "tokenizer.json",
  ]);
  const before = server.requests.length;
  await installModel({
    baseUrl: server.url,
    name: "org/tiny-model",
    cacheDir,
    stagingDir,
    manifest: manifest(),
  });
  assert.equal(server.requests.length, before + 1, "only LICENSE was fetched again");
});

Deno.test("downloadModel() puts a file named by a subfolder path in that subfolder", async () => {
  await using dir = await tempDir();
  const { "model.onnx": model, ...rest } = FILES;
  const nested = { "onnx/model.onnx": model!, ...rest };
  await using server = hub({ files: nested });
  const folder = await downloadModel({
    baseUrl: server.url,
    name: "org/tiny-model",
    cacheDir: dir.path,
    manifest: { ...manifest(nested), model_file: "onnx/model.onnx" },
  });
  assert.deepEqual(await Deno.readFile(join(folder, "onnx", "model.onnx")), model);
  assert.ok(server.requests.some((r) => r.url.endsWith("/resolve/main/onnx/model.onnx")));
});

Deno.test("downloadModel() refuses a manifest path that leaves the model folder, before any request", async () => {
  await using dir = await tempDir();
  await using server = hub();
  const escaping = {
    ...manifest(),
    files: { ...manifest().files, "../../outside": "0".repeat(64) },
  };
  await assert.rejects(
    downloadModel({
      baseUrl: server.url,
      name: "org/tiny-model",
      cacheDir: join(dir.path, "cache"),
      manifest: escaping,
    }),
    (error: unknown) => {
      assert.ok(error instanceof EmbedderError);
      assert.equal(error.code, "model_invalid");
      assert.match(error.message, /"\.\.\/\.\.\/outside" leaves the model folder/);
      return true;
    },
  );
  assert.equal(server.requests.length, 0);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(dir.path)), []);
});

Deno.test("checkInstalledModel() finds a damaged file; uninstallDamaged() makes the next install fetch only it", async () => {
  await using dir = await tempDir();
  await using server = hub();
  const options = {
    baseUrl: server.url,
    name: "org/tiny-model",
    cacheDir: join(dir.path, "models"),
    stagingDir: join(dir.path, "downloads"),
    manifest: manifest(),
  };
  assert.deepEqual(await checkInstalledModel(options.cacheDir, options.name, options.manifest), {
    state: "absent",
  });
  const model = await installModel(options);
  assert.deepEqual(await checkInstalledModel(options.cacheDir, options.name, options.manifest), {
    state: "intact",
    dir: model,
  });
  const other = { ...manifest(), name: "tiny-model-v2" };
  assert.equal((await checkInstalledModel(options.cacheDir, options.name, other)).state, "other");

  const bytes = await Deno.readFile(join(model, "tokenizer.json"));
  bytes[3] = bytes[3]! ^ 0x01;
  await Deno.writeFile(join(model, "tokenizer.json"), bytes);
  const found = await checkInstalledModel(options.cacheDir, options.name, options.manifest);
  assert.ok(found.state === "damaged", `found ${found.state}`);
  assert.deepEqual(found.problems.map((p) => [p.path, p.kind]), [
    [join(model, "tokenizer.json"), "damaged"],
  ]);

  await uninstallDamaged(options.cacheDir, options.stagingDir, options.name, found.problems);
  assert.equal(
    (await checkInstalledModel(options.cacheDir, options.name, options.manifest)).state,
    "absent",
  );
  const before = server.requests.length;
  assert.equal(await installModel(options), model);
  assert.deepEqual(
    server.requests.slice(before).map((r) => new URL(r.url).pathname),
    ["/org/tiny-model/resolve/main/tokenizer.json"],
  );
  assert.deepEqual(await Deno.readFile(join(model, "tokenizer.json")), FILES["tokenizer.json"]);
});
