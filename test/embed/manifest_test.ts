import assert from "node:assert/strict";
import { join } from "node:path";
import { EmbedderError } from "../../src/embed/embedder.ts";
import { checkFiles, loadModelFolder, modelId, parseManifest } from "../../src/embed/manifest.ts";
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
    /m\.json is not a valid model manifest: dims takes a number above 0; pooling is cls or mean/,
  );
  assert.throws(
    () => parseManifest(manifestJson({ "model.onnx": SHA_OF_ABC }), "m.json"),
    /no checksum for tokenizer\.json/,
  );
  assert.equal(modelId(parseManifest(manifestJson(FILES), "m.json")), "tiny-model");
});

Deno.test("modelId() names the quantization and a document window shorter than the model's", () => {
  const id = (extra: Record<string, unknown>) =>
    modelId(parseManifest(manifestJson(FILES, extra), "m.json"));
  assert.equal(id({ quantization: "int8" }), "tiny-model-int8");
  assert.equal(id({ quantization: "int8", document_tokens: 8 }), "tiny-model-int8-doc8");
  assert.equal(id({ document_tokens: 16 }), "tiny-model");
  assert.throws(
    () => id({ document_tokens: 17 }),
    /m\.json is not a valid model manifest: document_tokens: 17 is more than max_tokens \(16\)/,
  );
});

Deno.test("parseManifest() refuses a key it does not know, so a misspelt max_batch is never ignored", () => {
  assert.throws(
    () => parseManifest(manifestJson(FILES, { max_batchs: 1 }), "m.json"),
    /m\.json is not a valid model manifest: unknown key "max_batchs"/,
  );
});

Deno.test("loadModelFolder() reads a folder whose model_file and tokenizer_file are in subfolders", async () => {
  await using dir = await tempDir();
  const files = { "onnx/model.onnx": SHA_OF_ABC, "tok/tokenizer.json": SHA_OF_ABC };
  await Deno.writeTextFile(
    join(dir.path, "manifest.json"),
    manifestJson(files, { model_file: "onnx/model.onnx", tokenizer_file: "tok/tokenizer.json" }),
  );
  await Deno.mkdir(join(dir.path, "onnx"));
  await Deno.writeTextFile(join(dir.path, "onnx", "model.onnx"), "abc");
  await assert.rejects(loadModelFolder(dir.path), /tok\/tokenizer\.json is missing/);
  await Deno.mkdir(join(dir.path, "tok"));
  await Deno.writeTextFile(join(dir.path, "tok", "tokenizer.json"), "abc");
  const folder = await loadModelFolder(dir.path);
  assert.equal(folder.manifest.model_file, "onnx/model.onnx");
  assert.equal(folder.manifest.tokenizer_file, "tok/tokenizer.json");
  const plain = parseManifest(manifestJson(FILES), "m.json");
  assert.equal(plain.model_file, "model.onnx", "the default when the manifest names none");
  assert.equal(plain.tokenizer_file, "tokenizer.json");
});

Deno.test("parseManifest() wants a checksum for the files model_file and tokenizer_file name", () => {
  assert.throws(
    () => parseManifest(manifestJson(FILES, { model_file: "onnx/model.onnx" }), "m.json"),
    /files: no checksum for onnx\/model\.onnx \(the model_file\); add its sha256 to files/,
  );
});

Deno.test("parseManifest() refuses paths that leave the model folder, saying why", () => {
  const refused = (extra: Record<string, unknown>, files: Record<string, string>, why: RegExp) =>
    assert.throws(() => parseManifest(manifestJson(files, extra), "m.json"), (error: unknown) => {
      assert.ok(error instanceof EmbedderError);
      assert.equal(error.code, "model_invalid");
      assert.match(error.message, why);
      return true;
    });
  assert.throws(
    () => parseManifest(manifestJson(FILES, { model_file: "../model.onnx" }), "m.json"),
    /model_file: "\.\.\/model\.onnx" leaves the model folder \(\.\.\); give a path inside it/,
  );
  assert.throws(
    () => parseManifest(manifestJson(FILES, { tokenizer_file: "/etc/tokenizer.json" }), "m.json"),
    /tokenizer_file: "\/etc\/tokenizer\.json" is absolute; give a path relative to the model folder/,
  );
  assert.throws(
    () => parseManifest(manifestJson({ ...FILES, "onnx/../../x": SHA_OF_ABC }), "m.json"),
    /files\.onnx\/\.\.\/\.\.\/x: "onnx\/\.\.\/\.\.\/x" leaves the model folder/,
  );
  const backslash = "onnx\\model.onnx";
  refused({ model_file: backslash }, { ...FILES, [backslash]: SHA_OF_ABC }, /has a backslash/);
  refused({ model_file: "C:/model.onnx" }, FILES, /"C:\/model\.onnx" is absolute/);
  refused({ model_file: "onnx//model.onnx" }, FILES, /has an empty or \. folder name/);
  refused({ model_file: "./model.onnx" }, FILES, /has an empty or \. folder name/);
  refused({}, { ...FILES, "": SHA_OF_ABC }, /files\.: "" is empty/);
});

Deno.test("checkFiles() lists every missing and damaged file, by path", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "model.onnx"), "abd");
  const problems = await checkFiles(dir.path, FILES);
  assert.deepEqual(problems.map((p) => [p.path, p.kind]).sort(), [
    [join(dir.path, "model.onnx"), "damaged"],
    [join(dir.path, "tokenizer.json"), "missing"],
  ]);
  assert.deepEqual(await checkFiles(dir.path, {}), []);
});
