import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { EmbedderError } from "../../src/embed/embedder.ts";
import { checkModelOnce } from "../../src/embed/model_check.ts";
import { tempDir } from "../helpers.ts";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

Deno.test("checkModelOnce() hashes a model folder once, again only when a file changes, and names a damaged file", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "model");
  await Deno.mkdir(dir);
  const weights = join(dir, "model.onnx");
  await Deno.writeTextFile(weights, "weights");
  await Deno.writeTextFile(join(dir, "tokenizer.json"), "{}");
  const files = { "model.onnx": sha256("weights"), "tokenizer.json": sha256("{}") };
  const stamp = join(tmp.path, "cache", "model-checked.json");

  await checkModelOnce(dir, files, stamp);
  assert.equal(JSON.parse(await Deno.readTextFile(stamp)).dir, dir);

  // Same size and time: the stamp holds, so the bytes are not read again.
  const { mtime } = await Deno.stat(weights);
  await Deno.writeTextFile(weights, "WEIGHTS");
  await Deno.utime(weights, mtime!, mtime!);
  await checkModelOnce(dir, files, stamp);

  await Deno.writeTextFile(weights, "not an onnx graph");
  await assert.rejects(
    checkModelOnce(dir, files, stamp),
    (error: Error) =>
      error instanceof EmbedderError && error.code === "model_damaged" &&
      error.message.includes("model.onnx"),
  );
  await Deno.remove(weights);
  await assert.rejects(
    checkModelOnce(dir, files, stamp),
    (error: Error) => error instanceof EmbedderError && error.code === "model_missing",
  );
});
