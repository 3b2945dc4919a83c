/**
 * The local embedder: the model's tokenizer on the main thread, onnxruntime
 * inference in worker threads, texts batched by token budget.
 * @module
 */
import { join } from "node:path";
import { type BatchLimits, DEFAULT_BATCH_LIMITS, planBatches } from "./batching.ts";
import type { Embedder, Truncation } from "../../text/embedder.ts";
import { EmbedderError } from "./embedder.ts";
import { documentTokens, loadModelFolder, type ModelManifest } from "./manifest.ts";
import { TextTokenizer, type TokenizedText } from "./tokenizer.ts";
import { WorkerPool } from "./worker_pool.ts";

/** Most workers one model runs in: each holds its own copy of the model (about 113 MB int8). */
export const MAX_WORKERS = 4;

/**
 * How many inference workers a model runs in on `cores` cores (each with its
 * share of the cores as intra-op threads). A model run one text a batch
 * (`max_batch: 1`, the int8 ones) hands onnxruntime matrices of one text, too
 * small to split well over threads: one single-threaded worker per core, at
 * most {@linkcode MAX_WORKERS}. On 2 cores with the default int8 model, real
 * sphinx chunks: 51.0 chunks/s against 43.9-48.5 for one worker × 2 threads,
 * and sphinx's own code searchable by meaning in 163 s against 191; a lone
 * query takes 6.7 ms against 4.1. A model that batches texts runs in one
 * worker using every core (fp32 MiniLM-L6, 256-token chunks, batch 32: 16.4
 * chunks/s against 16.9 for 2 × 1, within noise, with a query in 6.5 ms
 * against 9.8 and 223 MB against 533).
 */
export function workerCount(manifest: Pick<ModelManifest, "max_batch">, cores: number): number {
  return manifest.max_batch === 1 ? Math.min(cores, MAX_WORKERS) : 1;
}

/** Options for {@linkcode OnnxEmbedder.open}. */
export interface OnnxEmbedderOptions {
  /** Inference workers; default: {@linkcode workerCount}'s. */
  workers?: number;
  /** Intra-op threads per worker; default: the cores divided among the workers. */
  threadsPerWorker?: number;
  /** Batch limits (the manifest's `max_batch` caps them); default {@linkcode DEFAULT_BATCH_LIMITS}. */
  batch?: BatchLimits;
  /** Check every file's sha256 before loading (default true). */
  verify?: boolean;
}

/** Counters for debug output. */
export interface EmbedStats {
  /** Documents embedded since open (queries are not counted). */
  texts: number;
  /** Of those, texts longer than the model's limit whose end was cut. */
  truncated: number;
  /** Inference batches run. */
  batches: number;
}

/** `limits`, with no more texts per batch than the manifest allows. */
function cappedBy(manifest: ModelManifest, limits: BatchLimits): BatchLimits {
  return { ...limits, maxBatch: Math.min(limits.maxBatch, manifest.max_batch ?? Infinity) };
}

/** An {@linkcode Embedder} running an ONNX model from a model folder. */
export class OnnxEmbedder implements Embedder {
  readonly #stats: EmbedStats = { texts: 0, truncated: 0, batches: 0 };
  #closed = false;

  private constructor(
    readonly id: string,
    readonly manifest: ModelManifest,
    private readonly tokenizer: TextTokenizer,
    private readonly pool: WorkerPool,
    private readonly limits: BatchLimits,
  ) {}

  /** Loads the model folder at `dir` (checking its files) and starts the workers. */
  static async open(dir: string, options: OnnxEmbedderOptions = {}): Promise<OnnxEmbedder> {
    const folder = await loadModelFolder(dir, { verify: options.verify ?? true });
    const { manifest } = folder;
    const cores = navigator.hardwareConcurrency || 1;
    const workers = Math.max(1, options.workers ?? workerCount(manifest, cores));
    const threads = options.threadsPerWorker ?? Math.max(1, Math.floor(cores / workers));
    const [tokenizer, pool] = await Promise.all([
      TextTokenizer.open(join(dir, manifest.tokenizer_file), manifest.max_tokens),
      WorkerPool.open(workers, {
        type: "init",
        modelPath: join(dir, manifest.model_file),
        threads,
        inputs: manifest.inputs,
        output: manifest.output,
        pooling: manifest.pooling,
        dims: manifest.dims,
      }),
    ]);
    return new OnnxEmbedder(
      folder.id,
      manifest,
      tokenizer,
      pool,
      cappedBy(manifest, options.batch ?? DEFAULT_BATCH_LIMITS),
    );
  }

  /** Width of the vectors. */
  get dims(): number {
    return this.manifest.dims;
  }

  /** Texts, truncations and batches so far (a copy). */
  get stats(): EmbedStats {
    return { ...this.#stats };
  }

  /** Embeds passages with the model's document prefix, counting those cut to fit. */
  async embedDocuments(texts: readonly string[], urgent = false): Promise<Float32Array[]> {
    const prefix = this.manifest.document_prefix;
    const window = documentTokens(this.manifest);
    const encoded = texts.map((text) => this.tokenizer.encode(prefix + text, window));
    this.#stats.texts += encoded.length;
    this.#stats.truncated += encoded.filter((e) => e.truncated).length;
    return await this.#embed(encoded, urgent);
  }

  /** Embeds a query with the model's query prefix. */
  async embedQuery(text: string): Promise<Float32Array> {
    const encoded = this.tokenizer.encode(this.manifest.query_prefix + text);
    const [vector] = await this.#embed([encoded], true);
    return vector!;
  }

  /** Documents embedded and cut to the document window since open. */
  truncation(): Truncation {
    const { texts, truncated } = this.#stats;
    return { maxTokens: documentTokens(this.manifest), texts, truncated };
  }

  /** The model's limit when `text`, as a query, is longer than it. */
  queryCutAt(text: string): number | undefined {
    const cut = this.tokenizer.encode(this.manifest.query_prefix + text).truncated;
    return cut ? this.manifest.max_tokens : undefined;
  }

  /** Tokenizes one text as the model would see it (for debug output and tests). */
  tokenize(text: string): TokenizedText {
    return this.tokenizer.encode(text);
  }

  /** Stops the workers, once their current calls into onnxruntime return. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.pool.close();
  }

  async #embed(encoded: readonly TokenizedText[], urgent = false): Promise<Float32Array[]> {
    if (this.#closed) throw new EmbedderError("closed", "the embedder is closed");
    if (encoded.length === 0) return [];
    const out = new Array<Float32Array>(encoded.length);
    const batches = planBatches(encoded.map((e) => e.ids.length), this.limits);
    this.#stats.batches += batches.length;
    await Promise.all(batches.map(async ({ indexes, seqLen }) => {
      const ids = new Int32Array(indexes.length * seqLen);
      const lengths = new Int32Array(indexes.length);
      indexes.forEach((index, row) => {
        const tokens = encoded[index]!.ids;
        ids.set(tokens, row * seqLen);
        lengths[row] = tokens.length;
      });
      const flat = await this.pool.run(ids, lengths, seqLen, urgent);
      const dims = this.manifest.dims;
      indexes.forEach((index, row) => out[index] = flat.slice(row * dims, (row + 1) * dims));
    }));
    return out;
  }
}
