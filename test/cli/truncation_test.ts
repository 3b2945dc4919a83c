import assert from "node:assert/strict";
import { join } from "node:path";
import { shippedModelDir } from "../../src/embed/load.ts";
import { documentTokens, loadModelFolder } from "../../src/embed/manifest.ts";
import { tempDir } from "../helpers.ts";
import { cliHere } from "./in_process.ts";

/** About 720 tokens: longer than the shipped model reads of a document (512 or fewer) or a query (512). */
const LONG = "the quick brown fox jumps over the lazy dog ".repeat(80).trim();
/** Code that the tokenizer cuts into some 1,800 pieces (three per `q7,`). */
const DENSE_CODE = `FOXES = [\n${`    ${"q7, ".repeat(20)}\n`.repeat(30)}]`;

Deno.test("cairn import, index and recall say when the model cut a text to its token limit", async () => {
  const { manifest } = await loadModelFolder(shippedModelDir(), { verify: false });
  await using tmp = await tempDir();
  const store = ["--store", join(tmp.path, "store")];
  const memories = join(tmp.path, "memories.jsonl");
  await Deno.writeTextFile(
    memories,
    [{ id: "long", content: LONG }, { id: "short", content: "a short memory about foxes" }]
      .map((line) => JSON.stringify(line)).join("\n"),
  );
  const imported = await cliHere([...store, "import", memories]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(
    imported.stderr,
    new RegExp(
      `1 of 2 texts embedded were longer than the embedding model's ${
        documentTokens(manifest)
      }-token limit; only their start was embedded`,
    ),
  );

  const repo = join(tmp.path, "repo");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  await Deno.writeTextFile(join(repo, "fox.py"), `${DENSE_CODE}\n`);
  const indexed = await cliHere([...store, "index", repo]);
  assert.equal(indexed.code, 0, indexed.stderr);
  assert.match(indexed.stderr, /\d+ of \d+ texts embedded were longer than the embedding model.s/);

  const long = await cliHere([...store, "recall", LONG, "--format", "debug"]);
  assert.equal(long.code, 0, long.stderr);
  assert.match(
    long.stdout,
    new RegExp(
      `^> the query is longer than the embedding model's ${manifest.max_tokens}-token limit; ` +
        "the search by meaning read 3 parts of it: the first and those whose words are rarest " +
        "in what is searched$",
      "m",
    ),
  );
  assert.doesNotMatch(long.stderr, /texts embedded/, "a query is not counted with the documents");
  const short = await cliHere([...store, "recall", "quick fox", "--format", "debug"]);
  assert.equal(short.code, 0, short.stderr);
  assert.doesNotMatch(short.stdout, /query is longer/);
  const lexical = await cliHere([...store, "search-text", LONG, "--format", "debug"]);
  assert.equal(lexical.code, 0, lexical.stderr);
  assert.match(lexical.stdout, /^1\. \[.*\| vector - \| lexical #1 /m);
  assert.doesNotMatch(lexical.stdout, /query is longer/, "no vector search, no note");
});
