/**
 * `deno task bench embed`: model load time, embedding throughput of the
 * pipeline (tokenizer → worker → pooling) against raw onnxruntime on the same
 * inputs, the worker layouts on this machine's cores, and the cache.
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BatchLimits, DEFAULT_BATCH_LIMITS } from "../src/embed/batching.ts";
import { CachedEmbedder } from "../src/embed/cache.ts";
import { DEFAULT_MODEL, shippedModelDir } from "../src/embed/load.ts";
import { loadModelFolder } from "../src/embed/manifest.ts";
import { OnnxEmbedder, workerCount } from "../src/embed/onnx_embedder.ts";
import { TextTokenizer } from "../src/embed/tokenizer.ts";
import { feeds, openSession } from "../src/embed/onnx_session.ts";
import { chunkedFiles } from "./chunked_files.ts";
import { benchModelFolders, referenceModelDir } from "./model_folders.ts";
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

/** One way to embed that the benchmark times: a model folder and its batch limits. */
interface Variant {
  name: string;
  dir: string;
  batch?: BatchLimits;
}

/** One text a batch: no padding at all, and the only way a dynamically quantized model runs. */
const ONE_A_BATCH: BatchLimits = { ...DEFAULT_BATCH_LIMITS, maxBatch: 1 };

/**
 * The variants: every shipped model as cairn runs it, the fp32 one also one
 * text a batch, and any model folder named in CAIRN_BENCH_MODELS
 * (`:`-separated; e.g. a quantized export being weighed).
 */
async function variants(): Promise<Variant[]> {
  const out: Variant[] = [];
  for (const dir of await benchModelFolders()) {
    const { id } = await loadModelFolder(dir, { verify: false });
    out.push({ name: `${id}, as cairn runs it`, dir });
    if (dir === referenceModelDir()) {
      out.push({ name: `${id}, one text a batch`, dir, batch: ONE_A_BATCH });
    }
  }
  return out;
}

/** Chunks of cairn's own source, cut by its code chunker: real lengths, real code. */
async function codeChunks(count: number): Promise<string[]> {
  const root = fileURLToPath(new URL("../src/", import.meta.url));
  const out: string[] = [];
  for await (const file of chunkedFiles(root)) out.push(...file.chunks.map((chunk) => chunk.text));
  const step = Math.max(1, Math.floor(out.length / count));
  return out.filter((_, i) => i % step === 0).slice(0, count);
}

/** Chunks a second of `variant` over `inputs`, sent as the embedding lane sends them (32 a call). */
async function variantRate(variant: Variant, inputs: string[]): Promise<number> {
  const embedder = await OnnxEmbedder.open(variant.dir, {
    verify: false,
    ...(variant.batch ? { batch: variant.batch } : {}),
  });
  try {
    await embedder.embedDocuments(inputs.slice(0, 4));
    return await timedRate(inputs.length, async () => {
      for (let at = 0; at < inputs.length; at += 32) {
        await embedder.embedDocuments(inputs.slice(at, at + 32));
      }
    });
  } finally {
    await embedder.close();
  }
}

/** Raw onnxruntime fp32 over `inputs`, one text a run (no padding), on the main thread. */
async function rawOneByOne(dir: string, inputs: string[]): Promise<number> {
  const folder = await loadModelFolder(dir, { verify: false });
  const encoded = await tokenIds(dir, inputs);
  const session = await openSession(join(dir, "model.onnx"), navigator.hardwareConcurrency || 1);
  const runs = encoded.map((ids) =>
    feeds(
      {
        type: "run",
        id: 0,
        ids: Int32Array.from(ids),
        lengths: Int32Array.of(ids.length),
        seqLen: ids.length,
      },
      folder.manifest.inputs,
    )
  );
  try {
    await session.run(runs[0]!, [folder.manifest.output]);
    return await timedRate(inputs.length, async () => {
      for (const run of runs) await session.run(run, [folder.manifest.output]);
    });
  } finally {
    await session.release();
  }
}

/** Texts a second through a second store's cache when a first store embedded them (the user's cache). */
async function secondStoreRate(
  dir: string,
  inputs: string[],
): Promise<{ first: number; second: number }> {
  const root = await Deno.makeTempDir({ prefix: "cairn-bench-embed-" });
  try {
    const machine = join(root, "user-cache");
    const open = async (store: string) =>
      await CachedEmbedder.open(
        await OnnxEmbedder.open(dir, { verify: false }),
        join(root, store),
        machine,
      );
    const a = await open("a");
    const first = await timedRate(inputs.length, () => a.embedDocuments(inputs));
    await a.close();
    const b = await open("b");
    const second = await timedRate(inputs.length, () => b.embedDocuments(inputs));
    if (b.stats.misses > 0) throw new Error(`the second store embedded ${b.stats.misses} texts`);
    await b.close();
    return { first, second };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const ROUNDS = 3;

/** Measures the embedding layer and records the figures in bench/RESULTS.md. */
export async function benchEmbed(model = DEFAULT_MODEL): Promise<void> {
  const dir = shippedModelDir(model);
  const cores = navigator.hardwareConcurrency || 1;
  const workers = workerCount((await loadModelFolder(dir, { verify: false })).manifest, cores);
  const loads: number[] = [];
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    const embedder = await OnnxEmbedder.open(dir);
    loads.push(performance.now() - started);
    await embedder.close();
  }

  const chunks = await codeChunks(160);
  const tokens = await tokenCounts(dir, chunks);
  const all = await variants();
  const rates = new Map<string, number[]>([
    ["raw", []],
    ...all.map((v) => [v.name, []] as [string, number[]]),
  ]);
  for (let round = 0; round < ROUNDS; round++) {
    rates.get("raw")!.push(await rawOneByOne(referenceModelDir(), chunks));
    for (const variant of all) rates.get(variant.name)!.push(await variantRate(variant, chunks));
  }
  const raw = median(rates.get("raw")!);
  const layouts = {
    one: await pipelineRate(dir, 1, texts(128, 256)),
    two: cores > 1 ? await pipelineRate(dir, cores, texts(128, 256)) : Number.NaN,
  };
  const shared = await secondStoreRate(dir, texts(300, 64, 1).map((text, i) => `${text} ${i}`));

  const f = (n: number) => n.toFixed(1);
  const body = [
    "## Embeddings",
    "",
    `${chunks.length} chunks of cairn's own source as its code chunker cuts them (mean ${
      f(tokens.mean)
    } tokens, longest ${tokens.max}), sent 32 a call as the embedding lane sends them; median of ${ROUNDS} interleaved rounds, ${cores} cores.`,
    "",
    "| variant | chunks/s, median (range) | × raw fp32 |",
    "|---|---:|---:|",
    `| raw onnxruntime fp32, one text a run, main thread, ${cores} threads | ${
      spread(rates.get("raw")!)
    } | 1.00 |`,
    ...all.map((variant) => {
      const runs = rates.get(variant.name)!;
      return `| ${variant.name} | ${spread(runs)} | ${(median(runs) / raw).toFixed(2)} |`;
    }),
    "",
    "| measure | value |",
    "|---|---|",
    `| ${model} load (sha256 check + tokenizer + ${workers} worker session${
      workers === 1 ? "" : "s, side by side"
    }), median of 3 | ${median(loads).toFixed(0)} ms |`,
    `| 128 texts of 256 tokens, 1 worker × ${cores} threads | ${f(layouts.one)} chunks/s |`,
    `| same, ${cores} workers × 1 thread | ${f(layouts.two)} chunks/s |`,
    `| 300 texts of 64 tokens, first store (model) | ${f(shared.first)} texts/s |`,
    `| same texts, second store (the user's cache) | ${f(shared.second)} texts/s |`,
  ].join("\n");
  console.log(body);
  await writeSection("embed", await runInfo("embed"), body);
}

/** A median and the range around it, in chunks a second. */
function spread(runs: number[]): string {
  const f = (n: number) => n.toFixed(1);
  return `${f(median(runs))} (${f(Math.min(...runs))}-${f(Math.max(...runs))})`;
}

/** Each input's token ids as the model in `dir` reads them (no model is started). */
async function tokenIds(dir: string, inputs: string[]): Promise<number[][]> {
  const { manifest } = await loadModelFolder(dir, { verify: false });
  const tokenizer = await TextTokenizer.open(
    join(dir, manifest.tokenizer_file),
    manifest.max_tokens,
  );
  return inputs.map((text) => tokenizer.encode(text).ids);
}

async function tokenCounts(dir: string, inputs: string[]): Promise<{ mean: number; max: number }> {
  const counts = (await tokenIds(dir, inputs)).map((ids) => ids.length);
  return { mean: counts.reduce((a, b) => a + b, 0) / counts.length, max: Math.max(...counts) };
}
