/**
 * The question's vector, computed once per recall for every retriever that
 * reads it, or undefined with a note saying why recall answers by words.
 * @module
 */
import { isModelFailure } from "../embed/embedder.ts";
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
}

/**
 * The vector of `query`, or undefined with a note saying why recall answers
 * by words only: no model, a model still loading (when recall is not to
 * wait), or one that cannot be loaded or reached.
 */
export async function queryVector(
  model: QueryModel,
  query: string,
  mode: RecallMode,
  note: (text: string) => void,
): Promise<Float32Array | undefined> {
  const wordsOnly = (why: string) => {
    const rest = mode === "vector" ? "" : "; lexical results only";
    note(`semantic search is not ready (${why})${rest}`);
    return undefined;
  };
  if (!model.embedQuery) return wordsOnly("no embedding model loaded");
  if (model.modelReady?.() === false) {
    // A model that loads within a moment (an owner just started) is worth the wait.
    const embedding = model.embedQuery(query);
    embedding.catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const vector = await Promise.race([
      embedding.catch(() => undefined),
      new Promise<undefined>((
        resolve,
      ) => (timer = setTimeout(() => resolve(undefined), MODEL_WAIT_MS))),
    ]).finally(() => clearTimeout(timer));
    return vector ?? wordsOnly("the embedding model is still loading");
  }
  try {
    return await model.embedQuery(query);
  } catch (error) {
    if (!isModelFailure(error)) throw error;
    return wordsOnly(`the embedding model cannot be used: ${error.message}`);
  }
}
