/**
 * An embedder backed by an OpenAI-compatible `/v1/embeddings` endpoint
 * (OpenAI, Ollama, vLLM, text-embeddings-inference, LM Studio…).
 * @module
 */
import { z } from "zod";
import type { Embedder } from "../../text/embedder.ts";
import { EmbedderError, normalize } from "./embedder.ts";
import { fetchWithRetry, INTERACTIVE, readJsonAnswer, type RetryOptions } from "./http_retry.ts";

/** Settings of an {@linkcode HttpEmbedder}. */
export interface HttpEmbedderConfig {
  /** The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Model name sent with each request. */
  model: string;
  /** Bearer token, when the server wants one. */
  apiKey?: string;
  /** Width the model returns; every answer is checked against it. */
  dims: number;
  /** Prefix added to queries (e.g. BGE's instruction); default none. */
  queryPrefix?: string;
  /** Texts per request; default 64. */
  batchSize?: number;
  /** Retry settings. */
  retry?: RetryOptions;
}

const ResponseSchema = z.object({
  data: z.array(
    z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()) }),
  ),
});

/** An {@linkcode Embedder} that calls a remote `/embeddings` endpoint. */
export class HttpEmbedder implements Embedder {
  readonly id: string;
  readonly dims: number;
  readonly #url: string;

  constructor(private readonly config: HttpEmbedderConfig) {
    this.id = `http:${config.model}`;
    this.dims = config.dims;
    this.#url = `${config.baseUrl.replace(/\/+$/, "")}/embeddings`;
  }

  /** Embeds passages, `batchSize` per request. */
  async embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    const size = this.config.batchSize ?? 64;
    const out: Float32Array[] = [];
    for (let at = 0; at < texts.length; at += size) {
      out.push(...await this.#request(texts.slice(at, at + size), this.config.retry));
    }
    return out;
  }

  /** Embeds a query with the configured query prefix; someone waits, so it gives up within seconds. */
  async embedQuery(text: string): Promise<Float32Array> {
    const input = [(this.config.queryPrefix ?? "") + text];
    const [vector] = await this.#request(input, { ...INTERACTIVE, ...this.config.retry });
    return vector!;
  }

  /** Nothing to release. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  async #request(input: readonly string[], retry?: RetryOptions): Promise<Float32Array[]> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    const response = await fetchWithRetry(this.#url, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: this.config.model, input, encoding_format: "float" }),
    }, retry);
    const parsed = await readJsonAnswer(
      response,
      this.#url,
      ResponseSchema,
      "with OpenAI-style embeddings",
    );
    const vectors = new Array<Float32Array>(input.length);
    for (const item of parsed.data) {
      if (item.embedding.length !== this.dims) {
        throw new EmbedderError(
          "wrong_dims",
          `model ${this.config.model} returned ${item.embedding.length} dimensions, configured ${this.dims}; ` +
            `set dims to ${item.embedding.length} (and re-embed) or pick the intended model`,
        );
      }
      if (item.index < input.length) {
        vectors[item.index] = normalize(Float32Array.from(item.embedding));
      }
    }
    if (vectors.filter(Boolean).length !== input.length) {
      throw new EmbedderError(
        "bad_response",
        `${this.#url} returned ${parsed.data.length} embeddings for ${input.length} inputs`,
      );
    }
    return vectors;
  }
}
