import assert from "node:assert/strict";
import { join } from "node:path";
import { EmbedderError } from "../../src/embed/embedder.ts";
import { loadModelFolder, modelId, parseManifest } from "../../src/embed/manifest.ts";
import { tempDir } from "../helpers.ts";

const SHA_OF_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

function manifestJson(files: Record<string, string>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    name: "Tiny-Model",
    source: "test",
    dims: 4,
    pooling: "cls",
    normalize: true,
    max_tokens: 16,
    query_prefix: "q: ",
    document_prefix: "",
    inputs: ["input_ids", "attention_mask"],
    output: "last_hidden_state",
    files,
    ...extra,
  });
}

const FILES = { "model.onnx": SHA_OF_ABC, "tokenizer.json": SHA_OF_ABC };

Deno.test("loadModelFolder() accepts a folder whose files match their checksums", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(
    join(dir.path, "manifest.json"),
    manifestJson(FILES, { quantization: "int8" }),
  );
  await Deno.writeTextFile(join(dir.path, "model.onnx"), "abc");
  await Deno.writeTextFile(join(dir.path, "tokenizer.json"), "abc");
  const folder = await loadModelFolder(dir.path);
  assert.equal(folder.id, "tiny-model-int8");
  assert.equal(folder.manifest.query_prefix, "q: ");
});

Deno.test("loadModelFolder() names a missing file and a damaged one", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "manifest.json"), manifestJson(FILES));
  await Deno.writeTextFile(join(dir.path, "model.onnx"), "abc");
  await assert.rejects(loadModelFolder(dir.path), (error: unknown) => {
    assert.ok(error instanceof EmbedderError);
    assert.equal(error.code, "model_missing");
    assert.match(error.message, /tokenizer\.json is missing/);
    return true;
  });
  await Deno.writeTextFile(join(dir.path, "tokenizer.json"), "abd");
  await assert.rejects(loadModelFolder(dir.path), (error: unknown) => {
    assert.ok(error instanceof EmbedderError);
    assert.equal(error.code, "model_damaged");
    assert.match(
      error.message,
      /tokenizer\.json is damaged \(sha256 [0-9a-f]{64}, expected ba7816bf/,
    );
    return true;
  });
});

Deno.test("parseManifest() lists the fields that are wrong", () => {
  assert.throws(
    () => parseManifest(manifestJson(FILES, { dims: -1, pooling: "max" }), "m.json"),
    /m\.json is not a valid model manifest: dims: .*; pooling: /,
  );
  assert.throws(
    () => parseManifest(manifestJson({ "model.onnx": SHA_OF_ABC }), "m.json"),
    /no checksum for tokenizer\.json/,
  );
  assert.equal(modelId(parseManifest(manifestJson(FILES), "m.json")), "tiny-model");
});
