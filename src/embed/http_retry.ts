/**
 * `fetch` with retries for flaky model servers: 429, 5xx and network errors
 * are retried with exponential backoff (100, 200, 400, 800 ms…).
 * @module
 */
import type { z } from "zod";
import { EmbedderError } from "./embedder.ts";

/** Retry settings for {@linkcode fetchWithRetry}. */
export interface RetryOptions {
  /** Attempts in all, first included; default 5. */
  tries?: number;
  /** First backoff; doubled after each retry; default 100 ms. */
  baseDelayMs?: number;
  /** Per-attempt timeout; default 60 s. */
  timeoutMs?: number;
  /** Time for every attempt and pause together, after which no attempt starts; default 180 s. */
  deadlineMs?: number;
}

/**
 * For a call someone is waiting on (a query's embedding, a reranking): two
 * attempts within ten seconds, after which the caller answers without it.
 */
export const INTERACTIVE: RetryOptions = { tries: 2, timeoutMs: 5_000, deadlineMs: 10_000 };

/** True for statuses worth retrying: rate limits and server errors. */
export function retryable(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * Fetches `url`, retrying 429/5xx answers and network failures. Resolves with
 * the last response (which may still be an error status for the caller to
 * explain); throws an `unreachable` {@linkcode EmbedderError} when no attempt
 * got an answer.
 */
export async function fetchWithRetry(
  url: string,
  init: RequestInit,
  options: RetryOptions = {},
): Promise<Response> {
  const tries = options.tries ?? 5;
  const base = options.baseDelayMs ?? 100;
  const deadline = Date.now() + (options.deadlineMs ?? 180_000);
  let lastError: unknown;
  let attempt = 0;
  for (; attempt < tries && Date.now() < deadline; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, base * 2 ** (attempt - 1)));
    const left = deadline - Date.now();
    if (left <= 0) break;
    try {
      const response = await fetch(url, {
        ...init,
        signal: AbortSignal.timeout(Math.min(options.timeoutMs ?? 60_000, left)),
      });
      if (!retryable(response.status) || attempt === tries - 1) return response;
      await response.body?.cancel();
    } catch (error) {
      lastError = error;
    }
  }
  throw new EmbedderError(
    "unreachable",
    `could not reach ${new URL(url).origin} after ${attempt} attempts (${lastError}); ` +
      `check that the server is running and the URL is right`,
    { cause: lastError },
  );
}

/**
 * Reads a provider's answer: refuses a bad key (401/403) and any other failure
 * status, then checks the body against `schema`, naming `expected` when it does
 * not match. Every failure is an {@linkcode EmbedderError} that says what to fix.
 */
export async function readJsonAnswer<T>(
  response: Response,
  url: string,
  schema: z.ZodType<T>,
  expected: string,
): Promise<T> {
  const body = await response.text();
  if (response.status === 401 || response.status === 403) {
    throw new EmbedderError(
      "auth",
      `${url} refused the API key (HTTP ${response.status}); check the key in the settings`,
    );
  }
  if (!response.ok) {
    throw new EmbedderError(
      "bad_response",
      `${url} answered HTTP ${response.status}: ${body.slice(0, 200)}`,
    );
  }
  try {
    return schema.parse(JSON.parse(body));
  } catch {
    throw new EmbedderError(
      "bad_response",
      `${url} did not answer ${expected}: ${body.slice(0, 200)}`,
    );
  }
}
