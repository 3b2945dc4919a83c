/**
 * The question's vectors, computed once per recall for every retriever that
 * reads them: one for a question the model reads whole, one per chosen window
 * of a longer one (see `query_windows.ts`); or none, with a note saying why
 * recall answers by words.
 * @module
 */
import { isModelFailure } from "../embed/embedder.ts";
import { queryWindows } from "./query_windows.ts";
import type { RecallMode } from "./types.ts";

/** How long recall waits for a model still loading before it answers by words alone. */
const MODEL_WAIT_MS = 2_000;

/** The model as recall reads it; `embedQuery` is absent while no model is loaded. */
export interface QueryModel {
  embedQuery?: (query: string) => Promise<Float32Array>;
  /**
   * False while the embedding model is still loading and recall should not
   * wait long for it (a server waits 2 s, then answers by words meanwhile);
   * absent: always wait.
   */
  modelReady?: () => boolean;
  /** The model's input limit, in tokens, when `query` is longer (see `Embedder.queryCutAt`). */
  queryCutAt?: (query: string) => number | undefined;
}

/**
 * The vectors of `query` (see {@linkcode queryWindows}, `weight` rating its
 * windows), or undefined with a note saying why recall answers by words only:
 * no model, a model still loading (when recall is not to wait), or one that
 * cannot be loaded or reached.
 */
export async function queryVectors(
  model: QueryModel,
  query: string,
  mode: RecallMode,
  weight: (text: string) => number,
  note: (text: string) => void,
): Promise<Float32Array[] | undefined> {
  const wordsOnly = (why: string) => {
    const rest = mode === "vector" ? "" : "; lexical results only";
    note(`semantic search is not ready (${why})${rest}`);
    return undefined;
  };
  const embedQuery = model.embedQuery;
  if (!embedQuery) return wordsOnly("no embedding model loaded");
  // The whole query first: its start is the first window, and the model then knows its length.
  const embedded = embedQuery(query).then(async (start) => {
    const cutAt = model.queryCutAt?.(query);
    if (cutAt === undefined) return [start];
    const windows = queryWindows(query, weight);
    note(
      `the query is longer than the embedding model's ${cutAt}-token limit; the search by ` +
        `meaning read ${windows.length === 1 ? "its start" : `${windows.length} parts of it`}: ` +
        "the first and those whose words are rarest in what is searched",
    );
    return [start, ...await Promise.all(windows.slice(1).map((text) => embedQuery(text)))];
  });
  if (model.modelReady?.() === false) {
    // A model that loads within a moment (an owner just started) is worth the wait.
    embedded.catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const vectors = await Promise.race([
      embedded.catch(() => undefined),
      new Promise<undefined>((
        resolve,
      ) => (timer = setTimeout(() => resolve(undefined), MODEL_WAIT_MS))),
    ]).finally(() => clearTimeout(timer));
    return vectors ?? wordsOnly("the embedding model is still loading");
  }
  try {
    return await embedded;
  } catch (error) {
    if (!isModelFailure(error)) throw error;
    return wordsOnly(`the embedding model cannot be used: ${error.message}`);
  }
}
