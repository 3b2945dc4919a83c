/**
 * `deno task bench embed`: model load time, embedding throughput of the
 * pipeline (tokenizer → worker → pooling) against raw onnxruntime on the same
 * inputs, the worker layouts on this machine's cores, and the cache.
 * @module
 */
import { join } from "node:path";
import { DEFAULT_BATCH_LIMITS } from "../src/embed/batching.ts";
import { CachedEmbedder } from "../src/embed/cache.ts";
import { DEFAULT_MODEL, shippedModelDir } from "../src/embed/load.ts";
import { loadModelFolder } from "../src/embed/manifest.ts";
import { OnnxEmbedder } from "../src/embed/onnx_embedder.ts";
import { feeds, openSession } from "../src/embed/onnx_session.ts";
import { median, runInfo, writeSection } from "./report.ts";

const WORDS = (
  "the database connection pool keeps open sockets for each request and returns them when the " +
  "query ends so the server does not wait for a new handshake while users load their pages"
).split(" ");

/** `count` distinct texts of `tokens` tokens each (one-token words, [CLS] and [SEP] included). */
function texts(count: number, tokens: number, seed = 0): string[] {
  return Array.from(
    { length: count },
    (_, i) =>
      Array.from(
        { length: tokens - 2 },
        (_, j) => WORDS[(i * 7 + j * (i % 5 + 1) + seed) % WORDS.length],
      ).join(" "),
  );
}

async function timedRate(count: number, run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return count / ((performance.now() - started) / 1000);
}

async function pipelineRate(dir: string, workers: number, inputs: string[]): Promise<number> {
  const embedder = await OnnxEmbedder.open(dir, { workers, verify: false });
  try {
    await embedder.embedDocuments(inputs.slice(0, 32 * workers)); // warm-up
    return await timedRate(inputs.length, () => embedder.embedDocuments(inputs));
  } finally {
    await embedder.close();
  }
}

async function rawRate(dir: string, inputs: string[]): Promise<number> {
  const folder = await loadModelFolder(dir, { verify: false });
  const embedder = await OnnxEmbedder.open(dir, { verify: false }); // only for its tokenizer
  const encoded = inputs.map((text) => embedder.tokenize(text).ids);
  await embedder.close();
  const session = await openSession(join(dir, "model.onnx"), navigator.hardwareConcurrency || 1);
  const seqLen = encoded[0]!.length;
  const batches: ReturnType<typeof feeds>[] = [];
  for (let at = 0; at < encoded.length; at += 32) {
    const rows = encoded.slice(at, at + 32);
    const ids = new Int32Array(rows.length * seqLen);
    rows.forEach((row, r) => ids.set(row, r * seqLen));
    const lengths = Int32Array.from(rows, (row) => row.length);
    batches.push(feeds({ type: "run", id: 0, ids, lengths, seqLen }, folder.manifest.inputs));
  }
  try {
    await session.run(batches[0]!, [folder.manifest.output]); // warm-up
    return await timedRate(inputs.length, async () => {
      for (const batch of batches) await session.run(batch, [folder.manifest.output]);
    });
  } finally {
    await session.release();
  }
}

/** Measures the embedding layer and records the figures in bench/RESULTS.md. */
export async function benchEmbed(model = DEFAULT_MODEL): Promise<void> {
  const dir = shippedModelDir(model);
  const cores = navigator.hardwareConcurrency || 1;
  const loads: number[] = [];
  let id = model;
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    const embedder = await OnnxEmbedder.open(dir);
    loads.push(performance.now() - started);
    id = embedder.id;
    await embedder.close();
  }

  const chunks = texts(128, 256);
  const raw = await rawRate(dir, chunks);
  const one = await pipelineRate(dir, 1, chunks);
  const two = cores > 1 ? await pipelineRate(dir, cores, chunks) : Number.NaN;
  const best = Math.max(one, Number.isNaN(two) ? 0 : two);

  const store = await Deno.makeTempDir({ prefix: "cairn-bench-embed-" });
  let cold = 0;
  let warm = 0;
  try {
    const inner = await OnnxEmbedder.open(dir, { verify: false });
    const cached = await CachedEmbedder.open(inner, store);
    const same = texts(500, 64, 1).map((text, i) => `${text} ${i}`);
    cold = await timedRate(same.length, () => cached.embedDocuments(same));
    await cached.close();
    const reopened = await CachedEmbedder.open(
      await OnnxEmbedder.open(dir, { verify: false }),
      store,
    );
    warm = await timedRate(same.length, () => reopened.embedDocuments(same));
    await reopened.close();
  } finally {
    await Deno.remove(store, { recursive: true });
  }

  const f = (n: number) => n.toFixed(1);
  const body = [
    "## Embeddings",
    "",
    `Model \`${id}\`, ${cores} cores, batch ${DEFAULT_BATCH_LIMITS.maxTokens / 256} × 256 tokens ` +
    `(128 chunks), token budget ${DEFAULT_BATCH_LIMITS.maxTokens}.`,
    "",
    "| measure | value |",
    "|---|---|",
    `| model load (sha256 check + tokenizer + 1 worker session), median of 3 | ${
      median(loads).toFixed(0)
    } ms |`,
    `| raw onnxruntime, main thread, ${cores} intra-op threads | ${f(raw)} chunks/s |`,
    `| pipeline, 1 worker × ${cores} threads | ${f(one)} chunks/s (${
      (100 * one / raw).toFixed(0)
    }% of raw) |`,
    `| pipeline, ${cores} workers × 1 thread | ${f(two)} chunks/s (${
      (100 * two / raw).toFixed(0)
    }% of raw) |`,
    `| best pipeline / raw | ${(100 * best / raw).toFixed(0)}% |`,
    `| 500 texts of 64 tokens, cold cache | ${f(cold)} texts/s |`,
    `| same 500 texts, warm cache (after reopen) | ${f(warm)} texts/s |`,
  ].join("\n");
  console.log(body);
  await writeSection("embed", await runInfo("speed"), body);
}
