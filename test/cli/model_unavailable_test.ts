import assert from "node:assert/strict";
import { join } from "node:path";
import { shippedModelDir } from "../../src/embed/load.ts";
import { tempDir } from "../helpers.ts";
import { cliHere } from "./in_process.ts";

const WORDS_ONLY =
  /semantic search is not ready \(the embedding model cannot be used: .+\); lexical/;

/** A store whose config.json names `modelDir` as its embedding model. */
async function storeWithModel(root: string, modelDir: string): Promise<string> {
  const store = join(root, "store");
  await Deno.mkdir(store);
  await Deno.writeTextFile(
    join(store, "config.json"),
    JSON.stringify({ embedder: { kind: "onnx", model_dir: modelDir } }),
  );
  return store;
}

/** Checks that a store without a usable model still remembers, lists and answers by words. */
async function worksByWords(store: string, why: RegExp): Promise<void> {
  const run = (...args: string[]) => cliHere(["--store", store, ...args]);
  // The vectors' complaint goes to the process's standard error, not the command's.
  const complaints: string[] = [];
  const processError = console.error;
  console.error = (...data: unknown[]) => void complaints.push(data.join(" "));
  const remembered = await run("remember", "Nightly backups of the billing database run at 02:00")
    .finally(() => console.error = processError);
  assert.equal(remembered.code, 0, remembered.stderr);
  assert.equal(
    (await run("remember", "Nightly backups of the billing database run at 02:00")).code,
    0,
  );
  const listed = await run("list");
  assert.equal(listed.stdout.match(/Nightly backups/g)?.length, 1, "the same text is a duplicate");

  const words = await run("search-text", "billing backups");
  assert.equal(words.code, 0, words.stderr);
  assert.match(words.stdout, /Nightly backups/);
  const recalled = await run("recall", "when do the billing backups run?");
  assert.equal(recalled.code, 0, recalled.stderr);
  assert.match(recalled.stdout, /Nightly backups/);
  assert.match(recalled.stdout, WORDS_ONLY);

  const meaning = await run("search", "billing backups");
  assert.equal(meaning.code, 0, meaning.stderr);
  assert.match(meaning.stdout, /Nothing found/);
  assert.match(meaning.stdout, /semantic search is not ready \(the embedding model cannot be used/);
  assert.match(meaning.stdout, why);
  assert.match(complaints.join("\n"), why, "the vectors say why they wait");
  assert.equal((await run("status")).code, 0);
}

Deno.test("with its model folder gone, a store still remembers, lists and answers by words, and says why", async () => {
  await using tmp = await tempDir();
  const missing = join(tmp.path, "no-such-model");
  const store = await storeWithModel(tmp.path, missing);
  await worksByWords(store, /no embedding model at .*no-such-model/);
  const status = await cliHere(["--store", store, "status"]);
  assert.match(status.stdout, /model\s+none usable: no embedding model at /);
});

Deno.test("with its model's weights damaged, a store answers by words and says the model cannot be used", async () => {
  await using tmp = await tempDir();
  const model = join(tmp.path, "model");
  await Deno.mkdir(model);
  for (const file of ["manifest.json", "tokenizer.json"]) {
    await Deno.copyFile(join(shippedModelDir(), file), join(model, file));
  }
  await Deno.writeTextFile(join(model, "model.onnx"), "not an onnx graph");
  await worksByWords(
    await storeWithModel(tmp.path, model),
    /model\.onnx/,
  );
});
