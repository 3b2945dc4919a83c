/**
 * Rerankers score (query, passage) pairs jointly; recall may use one on its
 * top 20-30 hits. The HTTP one speaks text-embeddings-inference's `/rerank`.
 * @module
 */
import { z } from "zod";
import { EmbedderError } from "./embedder.ts";
import { fetchWithRetry, INTERACTIVE, readJsonAnswer, type RetryOptions } from "./http_retry.ts";

/** Scores passages against a query. */
export interface Reranker {
  /** Identity of the model, for debug output. */
  readonly id: string;
  /** One relevance score per doc, in the docs' order (higher is more relevant). */
  rerank(query: string, docs: readonly string[]): Promise<number[]>;
  /** Releases resources. */
  close(): Promise<void>;
}

/** Settings of an {@linkcode HttpReranker}. */
export interface HttpRerankerConfig {
  /** Server root, e.g. `http://127.0.0.1:8080`; requests go to `<baseUrl>/rerank`. */
  baseUrl: string;
  /** Model name, for the id. */
  model: string;
  /** Bearer token, when the server wants one. */
  apiKey?: string;
  /** Retry settings. */
  retry?: RetryOptions;
}

const RerankSchema = z.array(
  z.object({ index: z.number().int().nonnegative(), score: z.number() }),
);

/** A {@linkcode Reranker} calling a text-embeddings-inference style `/rerank` endpoint. */
export class HttpReranker implements Reranker {
  readonly id: string;
  readonly #url: string;

  constructor(private readonly config: HttpRerankerConfig) {
    this.id = `http:${config.model}`;
    this.#url = `${config.baseUrl.replace(/\/+$/, "")}/rerank`;
  }

  /** POSTs `{query, texts}` and maps the `[{index, score}]` answer back to the docs' order. */
  async rerank(query: string, docs: readonly string[]): Promise<number[]> {
    if (docs.length === 0) return [];
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    const response = await fetchWithRetry(this.#url, {
      method: "POST",
      headers,
      body: JSON.stringify({ query, texts: docs }),
    }, { ...INTERACTIVE, ...this.config.retry });
    const items = await readJsonAnswer(response, this.#url, RerankSchema, "[{index, score}]");
    const scores = new Array<number>(docs.length).fill(Number.NaN);
    for (const { index, score } of items) if (index < docs.length) scores[index] = score;
    if (scores.some(Number.isNaN)) {
      throw new EmbedderError(
        "bad_response",
        `${this.#url} scored ${items.length} of ${docs.length} texts`,
      );
    }
    return scores;
  }

  /** Nothing to release. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
