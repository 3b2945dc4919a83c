import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { shippedModelDir } from "../../src/embed/load.ts";
import { loadModelFolder } from "../../src/embed/manifest.ts";
import { bagOfWords, bagOfWordsEmbedder, bagOfWordsServer } from "../embed/bag_of_words.ts";
import { localServer } from "../embed/local_server.ts";
import { shippedIdPattern } from "../embed/model_hub.ts";
import { SHIPPED_MODELS } from "../embed/shipped_models.ts";
import { MAIN, tempDir } from "../helpers.ts";
import { cliHere } from "./in_process.ts";
import { serveHere } from "../mcp/serve_here.ts";

/** A setting other than the embedder, which reembed keeps as written (never called here). */
const KEPT_RERANK = { kind: "http", base_url: "http://127.0.0.1:9/", model: "judge", top: 5 };

/** A store using the bag-of-words endpoint, holding `count` memories; returns its config.json text. */
async function bagOfWordsStore(store: string, url: string, count: number): Promise<string> {
  await Deno.mkdir(store, { recursive: true });
  const config = JSON.stringify({
    embedder: bagOfWordsEmbedder(url),
    rerank: KEPT_RERANK,
  });
  await Deno.writeTextFile(join(store, "config.json"), config);
  const words =
    ("alpha bravo cache daemon event fetch graph host index jitter kernel lease mutex " +
      "node queue retry shard token upload vault worker yaml zone build cron disk").split(" ");
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      id: `m${i}`,
      content: i === 0 ? "Deploys happen on Tuesday mornings" : `Note ${i}: ` +
        Array.from({ length: 6 }, (_, k) => words[(i * (k + 3)) % words.length]).join(" "),
    }));
  const file = join(store, "..", "memories.jsonl");
  await Deno.writeTextFile(file, lines.join("\n") + "\n");
  const imported = await cliHere(["--store", store, "import", file]);
  assert.equal(imported.code, 0, imported.stderr);
  return config;
}

/** A copy of the shipped model folder in `dir`. */
async function copyShippedModel(dir: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  for await (const entry of Deno.readDir(shippedModelDir())) {
    await Deno.copyFile(join(shippedModelDir(), entry.name), join(dir, entry.name));
  }
  return dir;
}

Deno.test("cairn reembed --model-dir refuses a folder that is not an intact model, before doing anything", async () => {
  await using tmp = await tempDir();
  await using embeddings = bagOfWordsServer();
  const store = join(tmp.path, "store");
  const config = await bagOfWordsStore(store, embeddings.url, 2);
  const reembed = (dir: string) => cliHere(["--store", store, "reembed", "--model-dir", dir]);
  const nothingDone = /Nothing was re-embedded; the store keeps its current model/;

  const nowhere = await reembed(join(tmp.path, "nowhere"));
  assert.equal(nowhere.code, 1);
  assert.match(nowhere.stderr, /--model-dir .*\/nowhere: no such folder; give the folder that/);
  assert.match(nowhere.stderr, nothingDone);

  await Deno.mkdir(join(tmp.path, "empty"));
  const empty = await reembed(join(tmp.path, "empty"));
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /\/empty: no manifest\.json; a model folder needs one/);

  const model = await copyShippedModel(join(tmp.path, "model"));
  const tokenizer = join(model, "tokenizer.json");
  const bytes = await Deno.readFile(tokenizer);
  bytes[100] = bytes[100]! ^ 0x20;
  await Deno.writeFile(tokenizer, bytes);
  await Deno.remove(join(model, "LICENSE"));
  const damaged = await reembed(model);
  assert.equal(damaged.code, 1);
  assert.match(
    damaged.stderr,
    new RegExp(`model file ${model}/tokenizer\\.json is damaged \\(sha256 [0-9a-f]{64}, expected`),
  );
  assert.match(damaged.stderr, new RegExp(`model file ${model}/LICENSE is missing`));
  assert.match(damaged.stderr, /copy the model's files again, or correct their sha256/);
  assert.match(damaged.stderr, nothingDone);

  const manifest = JSON.parse(await Deno.readTextFile(join(model, "manifest.json")));
  await Deno.writeTextFile(
    join(model, "manifest.json"),
    JSON.stringify({ ...manifest, model_file: "../model.onnx" }),
  );
  const escaping = await reembed(model);
  assert.equal(escaping.code, 1);
  assert.match(escaping.stderr, /model_file: "\.\.\/model\.onnx" leaves the model folder/);
  assert.match(escaping.stderr, /fix manifest\.json/);

  await Deno.writeTextFile(tokenizer, "not a tokenizer");
  await Deno.writeTextFile(
    join(model, "manifest.json"),
    JSON.stringify({
      ...manifest,
      files: {
        "model.onnx": manifest.files["model.onnx"],
        "tokenizer.json": createHash("sha256").update("not a tokenizer").digest("hex"),
      },
    }),
  );
  const unreadable = await reembed(model);
  assert.equal(unreadable.code, 1);
  assert.match(
    unreadable.stderr,
    new RegExp(`${model}/tokenizer\.json could not be loaded: .*; check tokenizer_file`),
  );

  const bare = await cliHere(["--store", store, "reembed", "--model-dir"]);
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /usage: cairn reembed \[--model-dir DIR\]/);

  assert.equal(await Deno.readTextFile(join(store, "config.json")), config);
  assert.equal(await Deno.stat(join(store, "projections", "next")).catch(() => null), null);
  const search = await cliHere(["--store", store, "search", "tuesday deploys", "--format", "json"]);
  assert.equal(search.code, 0, search.stderr);
});

Deno.test("cairn reembed --model-dir: killed midway, the store keeps its old model; run again, it continues and switches config.json", async () => {
  await using tmp = await tempDir();
  await using embeddings = bagOfWordsServer();
  const store = join(tmp.path, "store");
  const memories = 300;
  const config = await bagOfWordsStore(store, embeddings.url, memories);
  const args = ["--store", store, "reembed", "--model-dir", shippedModelDir()];

  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, ...args],
    env: { CAIRN_NO_OWNER: "1" },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let killedAt = 0;
  let seen = "";
  for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
    seen += chunk;
    const progress = [
      ...seen.matchAll(
        new RegExp(
          `embedding with \\S+: \\d+ of about ${memories} vectors(?:, about [^,]+ left)?, ` +
            "event (\\d+) of (\\d+)",
          "g",
        ),
      ),
    ]
      .at(-1);
    if (progress && Number(progress[1]) > 0 && Number(progress[1]) < Number(progress[2])) {
      killedAt = Number(progress[1]);
      child.kill("SIGKILL");
      break;
    }
  }
  await child.status;
  assert.ok(killedAt > 0, `the run was not caught midway; it printed: ${seen}`);

  assert.equal(await Deno.readTextFile(join(store, "config.json")), config);
  const status = await cliHere(["--store", store, "status"]);
  assert.match(status.stdout, /model +http:bow/);
  const query = "deploys happen on tuesday mornings";
  const old = await cliHere(["--store", store, "search", query, "--format", "json"]);
  assert.equal(old.code, 0, old.stderr);
  assert.equal(JSON.parse(old.stdout).results[0].content, "Deploys happen on Tuesday mornings");

  const resumed = await cliHere(args);
  assert.equal(resumed.code, 0, resumed.stderr);
  const report = resumed.stdout.match(
    new RegExp(
      `vectors rebuilt with ${await shippedIdPattern()} in [\\d.]+ s \\(continued an interrupted run ` +
        `from event (\\d+)\\): ${memories} memories`,
    ),
  );
  assert.ok(report, resumed.stdout);
  assert.ok(Number(report[1]) >= killedAt, `continued from ${report[1]}, killed at ${killedAt}`);
  const model = resolve(shippedModelDir());
  assert.match(resumed.stdout, new RegExp(`config\\.json now names the model folder ${model}`));
  assert.deepEqual(JSON.parse(await Deno.readTextFile(join(store, "config.json"))), {
    embedder: { kind: "onnx", model_dir: model },
    rerank: KEPT_RERANK,
  });

  const requests = embeddings.requests.length;
  assert.match(
    (await cliHere(["--store", store, "status"])).stdout,
    new RegExp(`model +${await shippedIdPattern()}`),
  );
  const found = await cliHere([
    "--store",
    store,
    "search",
    "when do deploys happen?",
    "--format",
    "json",
  ]);
  assert.equal(found.code, 0, found.stderr);
  assert.equal(JSON.parse(found.stdout).results[0].content, "Deploys happen on Tuesday mornings");
  assert.equal(embeddings.requests.length, requests, "the old endpoint is no longer used");
  assert.equal(await Deno.stat(join(store, "projections", "next")).catch(() => null), null);
});

Deno.test("cairn reembed beside a cairn serve rebuilds in the owner, which answers from the old vectors until the new ones take over", async () => {
  await using tmp = await tempDir();
  await using oldModel = bagOfWordsServer();
  const store = join(tmp.path, "store");
  await bagOfWordsStore(store, oldModel.url, 40);
  await using _serve = await serveHere(store);
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const asked = Promise.withResolvers<void>();
  // The new model: bag of words in 24 dimensions, holding its answers until the test lets go.
  await using newModel = localServer(async (request) => {
    asked.resolve();
    await held;
    const { input } = await request.json() as { input: string[] };
    return Response.json({
      data: input.map((text, index) => ({ index, embedding: [...bagOfWords(text), 0, 0, 0, 0] })),
    });
  });
  await Deno.writeTextFile(
    join(store, "config.json"),
    JSON.stringify({
      embedder: { kind: "http", base_url: `${newModel.url}/v1`, model: "bow-new", dims: 20 },
    }),
  );
  const run = (...args: string[]) => cliHere(["--store", store, ...args]);
  const topHit = async (query: string) => {
    const found = await run("search", query, "--format", "json");
    assert.equal(found.code, 0, found.stderr);
    return JSON.parse(found.stdout).results[0]?.content as string | undefined;
  };

  const reembedding = run("reembed");
  try {
    await asked.promise;
    assert.equal(
      await topHit("deploys happen on tuesday mornings"),
      "Deploys happen on Tuesday mornings",
    );
    const status = await run("status");
    assert.match(
      status.stdout,
      /\nreembed +to http:bow-new: \d+ of about 40 vectors so far(?:, about [^,]+ left)?, event \d+ of \d+; search answers from the current vectors/,
    );
    const second = await run("reembed");
    assert.notEqual(second.code, 0, "a second rebuild beside the first is refused");
    assert.match(
      second.stderr,
      /a `cairn --store \S+ reembed` is already running in the store's owner \(to http:bow-new, event \d+ of \d+\); it goes on/,
    );
    const written = await run("remember", "Backups run every night at midnight");
    assert.equal(written.code, 0, written.stderr);
  } finally {
    release();
  }
  const done = await reembedding;
  assert.equal(done.code, 0, done.stderr);
  assert.match(done.stdout, /vectors rebuilt with http:bow-new in [\d.]+ s: 41 memories/);

  const requested = newModel.requests.length;
  let hit: string | undefined;
  for (let i = 0; i < 100 && hit !== "Backups run every night at midnight"; i++) {
    hit = await topHit("backups run every night at midnight");
  }
  assert.equal(
    hit,
    "Backups run every night at midnight",
    "written during the rebuild, found after",
  );
  assert.ok(newModel.requests.length > requested, "queries are embedded with the new model");
  assert.equal(await Deno.stat(join(store, "projections", "next")).catch(() => null), null);
});

Deno.test("a store left on an older shipped model hears of the new default in status, and cairn reembed moves it there", async () => {
  const older = SHIPPED_MODELS.find((name) => shippedModelDir(name) !== shippedModelDir());
  assert.ok(older, "models/ ships only the default");
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const run = (...args: string[]) => cliHere(["--store", store, ...args]);
  await Deno.mkdir(store);
  const embedder = { kind: "onnx", model_dir: shippedModelDir(older) };
  await Deno.writeTextFile(join(store, "config.json"), JSON.stringify({ embedder }));
  assert.equal((await run("remember", "Deploys happen on Tuesday mornings")).code, 0);
  await Deno.remove(join(store, "config.json"));
  const olderId = (await loadModelFolder(shippedModelDir(older), { verify: false })).id;
  const latest = (await loadModelFolder(shippedModelDir(), { verify: false })).id;

  const before = await run("status");
  assert.match(before.stdout, new RegExp(`model +${olderId}:`));
  assert.match(
    before.stdout,
    new RegExp(
      `> cairn's default model is now ${latest}: \`cairn --store \\S+ reembed\` moves this store`,
    ),
  );
  const moved = await run("reembed");
  assert.equal(moved.code, 0, moved.stderr);
  assert.match(moved.stdout, new RegExp(`vectors rebuilt with ${latest} in`));
  const after = await run("status");
  assert.match(after.stdout, new RegExp(`model +${latest}:`));
  assert.doesNotMatch(after.stdout, /default model is now/);
});
