import assert from "node:assert/strict";
import { join } from "node:path";
import { EmbedderError } from "../../src/embed/embedder.ts";
import { DEFAULT_MODEL, shippedModelDir } from "../../src/embed/load.ts";
import { OnnxEmbedder } from "../../src/embed/onnx_embedder.ts";
import { documentTokens, loadModelFolder } from "../../src/embed/manifest.ts";
import { stopInferenceWorkers, WorkerPool } from "../../src/embed/worker_pool.ts";
import { tempDir } from "../helpers.ts";
import { embedderContract } from "./embedder_contract.ts";
import { dot } from "./dot.ts";
import { SHIPPED_MODELS } from "./shipped_models.ts";

for (const name of SHIPPED_MODELS) {
  const model = shippedModelDir(name);

  embedderContract(`OnnxEmbedder (${name})`, () => OnnxEmbedder.open(model, { verify: false }));

  Deno.test(`OnnxEmbedder (${name}) ranks a passage about connection pools above one about cake`, async () => {
    const embedder = await OnnxEmbedder.open(model);
    try {
      assert.equal(embedder.dims, 384);
      const [pools, cake] = await embedder.embedDocuments([
        "A connection pool keeps a set of open database connections and hands them out to " +
        "requests, so the application does not pay for a new TCP and auth handshake every query.",
        "Cream the butter and sugar, beat in the eggs one at a time, then fold in the flour " +
        "and bake the cake for 35 minutes at 180 degrees.",
      ]);
      const query = await embedder.embedQuery("database connection pooling");
      assert.ok(
        dot(query, pools!) > dot(query, cake!) + 0.1,
        `${dot(query, pools!)} vs ${dot(query, cake!)}`,
      );
    } finally {
      await embedder.close();
    }
  });

  Deno.test(`OnnxEmbedder (${name}) gives a text the same vector alone as among others`, async () => {
    const embedder = await OnnxEmbedder.open(model, { verify: false });
    try {
      const texts = [
        "short",
        "def open_pool(size): return Pool(size, timeout=30)",
        "The retry loop waits twice as long after every failed attempt, up to one minute. ".repeat(
          4,
        ),
      ];
      const together = await embedder.embedDocuments(texts);
      for (const [i, text] of texts.entries()) {
        const [alone] = await embedder.embedDocuments([text]);
        assert.ok(dot(alone!, together[i]!) > 0.99999, `${text}: ${dot(alone!, together[i]!)}`);
      }
    } finally {
      await embedder.close();
    }
  });

  Deno.test(`OnnxEmbedder (${name}) truncates a text longer than the model's limit and counts it`, async () => {
    const embedder = await OnnxEmbedder.open(model, { verify: false });
    try {
      const long = "the quick brown fox jumps over the lazy dog ".repeat(80);
      assert.ok(embedder.tokenize(long).truncated);
      assert.equal(embedder.tokenize(long).ids.length, embedder.manifest.max_tokens);
      const [vector, short] = await embedder.embedDocuments([long, "a short text"]);
      assert.equal(vector!.length, 384);
      assert.ok(short);
      const batches = embedder.manifest.max_batch === 1 ? 2 : 1;
      assert.deepEqual(embedder.stats, { texts: 2, truncated: 1, batches });
      const max = embedder.manifest.max_tokens;
      assert.equal(embedder.queryCutAt(long), max);
      assert.equal(embedder.queryCutAt("a short query"), undefined);
      await embedder.embedQuery(long);
      const window = documentTokens(embedder.manifest);
      assert.deepEqual(embedder.truncation(), { maxTokens: window, texts: 2, truncated: 1 });
    } finally {
      await embedder.close();
    }
  });

  Deno.test(`OnnxEmbedder (${name}).close() stops the workers and later calls fail clearly`, async () => {
    const embedder = await OnnxEmbedder.open(model, { verify: false });
    await embedder.close();
    await assert.rejects(embedder.embedQuery("x"), (error: unknown) => {
      assert.ok(error instanceof EmbedderError);
      assert.equal(error.code, "closed");
      return true;
    });
  });
}

Deno.test("OnnxEmbedder.open() refuses a manifest that names an output its graph lacks, naming the ones it has", async () => {
  const shipped = shippedModelDir(DEFAULT_MODEL);
  const { manifest } = await loadModelFolder(shipped, { verify: false });
  await using dir = await tempDir();
  for (const file of ["model.onnx", "tokenizer.json"]) {
    await Deno.symlink(join(shipped, file), join(dir.path, file));
  }
  await Deno.writeTextFile(
    join(dir.path, "manifest.json"),
    JSON.stringify({ ...manifest, output: "last_hidden_state" }),
  );
  await assert.rejects(OnnxEmbedder.open(dir.path, { verify: false }), (error: unknown) => {
    assert.ok(error instanceof EmbedderError);
    assert.equal(error.code, "model_invalid");
    assert.match(
      error.message,
      /model\.onnx does not fit its manifest: the graph has no output named last_hidden_state \(its outputs: cls_hidden_state\); fix the manifest/,
    );
    return true;
  });
});

Deno.test("stopInferenceWorkers() lets a model still loading finish before the process may exit", async () => {
  // Exiting while onnxruntime reads the model lets it parse freed memory and abort the process.
  const dir = shippedModelDir(DEFAULT_MODEL);
  const { manifest } = await loadModelFolder(dir, { verify: false });
  // The workers exist, loading, as soon as start() is called: stopping them now must wait for the
  // load, which then succeeds (a worker stopped mid-load would reject it, or abort the process).
  const starting = WorkerPool.start(1, {
    type: "init",
    modelPath: join(dir, manifest.model_file),
    threads: 1,
    inputs: manifest.inputs,
    output: manifest.output,
    pooling: manifest.pooling,
    dims: manifest.dims,
  });
  await stopInferenceWorkers();
  const pool = await starting;
  await pool.close();
});

Deno.test("OnnxEmbedder.close() in the middle of a batch waits for it, rejecting it as closed", async () => {
  const embedder = await OnnxEmbedder.open(shippedModelDir(DEFAULT_MODEL), { verify: false });
  const texts = Array.from(
    { length: 32 },
    (_, i) => `text ${i} ${"a long text to embed ".repeat(60)}`,
  );
  const rejected = assert.rejects(embedder.embedDocuments(texts), (error: unknown) => {
    assert.ok(error instanceof EmbedderError);
    assert.equal(error.code, "closed");
    return true;
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  await embedder.close();
  await rejected;
  await stopInferenceWorkers();
});

Deno.test("shippedModelDir() points at models/bge-small-en-v1.5-int8ffn2last1-doc256 beside the source", () => {
  assert.equal(DEFAULT_MODEL, "bge-small-en-v1.5-int8ffn2last1-doc256");
  assert.equal(
    shippedModelDir(),
    new URL("../../models/bge-small-en-v1.5-int8ffn2last1-doc256/", import.meta.url).pathname,
  );
});

Deno.test("OnnxEmbedder.open() names the missing model folder", async () => {
  await assert.rejects(OnnxEmbedder.open("/nonexistent/model/"), (error: unknown) => {
    assert.ok(error instanceof EmbedderError);
    assert.equal(error.code, "model_missing");
    assert.match(error.message, /no embedding model at \/nonexistent\/model\//);
    return true;
  });
});

Deno.test("models/ holds at least one model for the tests above to run against", () => {
  assert.ok(SHIPPED_MODELS.length > 0, "no model folder with a manifest.json under models/");
});

Deno.test("a query or an urgent document embedded while documents are queued is answered before them", async () => {
  const embedder = await OnnxEmbedder.open(shippedModelDir(DEFAULT_MODEL), { verify: false });
  try {
    const texts = Array.from(
      { length: 48 },
      (_, i) => `passage ${i} ${"about the ledger and its nightly audit ".repeat(30)}`,
    );
    const order: string[] = [];
    const documents = embedder.embedDocuments(texts).then(() => order.push("documents"));
    const query = embedder.embedQuery("when is the audit?").then(() => order.push("query"));
    const urgent = embedder.embedDocuments(["a note to check for duplicates"], true)
      .then(() => order.push("urgent document"));
    await Promise.all([documents, query, urgent]);
    // The two urgent calls may run side by side (one worker per core): either may finish first.
    assert.deepEqual(order.slice(0, 2).sort(), ["query", "urgent document"]);
    assert.equal(order[2], "documents");
  } finally {
    await embedder.close();
  }
});

/** A folder holding the shipped model's files under a manifest with `changes`. */
async function shippedModelWith(dir: string, changes: Record<string, unknown>): Promise<void> {
  const shipped = shippedModelDir();
  const manifest = JSON.parse(await Deno.readTextFile(join(shipped, "manifest.json")));
  for (const file of Object.keys(manifest.files)) {
    await Deno.symlink(join(shipped, file), join(dir, file));
  }
  await Deno.writeTextFile(join(dir, "manifest.json"), JSON.stringify({ ...manifest, ...changes }));
}

Deno.test("OnnxEmbedder runs no more texts in one batch than the manifest's max_batch", async () => {
  await using dir = await tempDir();
  await shippedModelWith(dir.path, { max_batch: 2 });
  const batch = { maxTokens: 8192, maxBatch: 64 };
  const embedder = await OnnxEmbedder.open(dir.path, { verify: false, batch });
  try {
    await embedder.embedDocuments(["one", "two", "three", "four", "five"]);
    assert.equal(embedder.stats.batches, 3);
  } finally {
    await embedder.close();
  }
});

Deno.test("a manifest's document_tokens cuts documents to that window, not queries, under an id of its own", async () => {
  await using dir = await tempDir();
  await using wholeDir = await tempDir();
  await shippedModelWith(dir.path, { document_tokens: 64 });
  await shippedModelWith(wholeDir.path, { document_tokens: undefined });
  const windowed = await OnnxEmbedder.open(dir.path, { verify: false });
  const whole = await OnnxEmbedder.open(wholeDir.path, { verify: false });
  try {
    assert.equal(windowed.id, `${whole.id}-doc64`);
    const words = "the quick brown fox jumps over the lazy dog ".repeat(20).trim().split(" ");
    const long = words.join(" ");
    // [CLS] and [SEP] take two of the 64 tokens; every word here is one token.
    const start = words.slice(0, 62).join(" ");
    assert.equal(whole.tokenize(start).ids.length, 64);
    const [cut] = await windowed.embedDocuments([long]);
    const [startOnly, all] = await whole.embedDocuments([start, long]);
    assert.ok(dot(cut!, startOnly!) > 0.99999);
    assert.ok(dot(cut!, all!) < 0.999);
    assert.deepEqual(windowed.truncation(), { maxTokens: 64, texts: 1, truncated: 1 });
    assert.equal(windowed.queryCutAt(long), undefined);
    assert.ok(dot(await windowed.embedQuery(long), await whole.embedQuery(long)) > 0.99999);
  } finally {
    await windowed.close();
    await whole.close();
  }
});
