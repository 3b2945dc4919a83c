/**
 * The memories nearest in meaning to texts about to be remembered (the check
 * for duplicates and contradictions): the memory vectors, and the memories
 * remembered a moment ago whose vectors are not in yet, compared by their
 * embeddings (read from the embedding cache: each was embedded for its own
 * check). Without the second part, two memories remembered a second apart
 * never met: the later one's check ran before the earlier one had a vector.
 * @module
 */
import type { VectorsProjection } from "../../projections/vectors/vectors_projection.ts";
import type { Embedder } from "../../text/embedder.ts";
import { isModelFailure } from "../embed/embedder.ts";
import type { NearestMemory } from "./memories.ts";

/** How long a check waits for the embeddings before it settles for the same text alone. */
const CHECK_SECONDS = 10;

/**
 * How long a check waits for a model still loading (an owner just started),
 * as recall waits for it; past that, the same text alone is a duplicate.
 */
const LOADING_SECONDS = 2;

/** At most this many memories without a vector are compared, the latest in the log. */
const WAITING_COMPARED = 64;

/** What {@linkcode nearestMemories} reads. */
export interface NearestMemoryDeps {
  /** The store's embedder and vectors now (a reembed replaces both). */
  embedder: () => Embedder;
  vectors: () => VectorsProjection;
  /** The vectors' checkpoint now. */
  checkpoint: () => number;
  /** The live memories among `ids`: their project and text. */
  read: (
    ids: readonly string[],
  ) => Promise<Array<{ id: string; project: string | null; content: string }>>;
  /** False while the model still loads in a server: then the check waits for it only a moment. */
  modelReady?: () => boolean;
}

/**
 * Finds, for each text, the memories of its project nearest in meaning,
 * closest first, with their exact cosines: the vector index (int8) finds the
 * candidates, and their embeddings (from the cache) measure them, so a bar
 * like `CONTRADICTION_COSINE` is not moved by the index's rounding.
 */
export function nearestMemories(deps: NearestMemoryDeps): NearestMemory {
  return async (texts, { waitForModel = false } = {}) => {
    const loading = deps.modelReady?.() === false;
    if (loading && !waitForModel) return texts.map(() => []);
    const wait = loading ? LOADING_SECONDS : CHECK_SECONDS;
    const [embedder, vectors] = [deps.embedder(), deps.vectors()];
    const projects = new Set(texts.map((text) => text.project));
    const waitingIds = (await vectors.waitingMemories(deps.checkpoint())).slice(
      -WAITING_COMPARED,
    );
    const waiting = (await deps.read(waitingIds)).filter((memory) => projects.has(memory.project));
    const embed = (contents: string[]) => within(wait, embedder.embedDocuments(contents, true));
    const found = await embed([...texts, ...waiting].map((text) => text.content));
    if (!found) return texts.map(() => []);
    const candidates = texts.map(({ project }, i) =>
      vectors.search("memory", found[i]!, { project, limit: 5 })
        .map((hit) => ({ id: hit.id.slice("memory:".length), cosine: 1 - hit.distance }))
    );
    const vectorOf = new Map(waiting.map((memory, j) => [memory.id, found[texts.length + j]!]));
    const others = await deps.read(
      [...new Set(candidates.flat().map((hit) => hit.id))].filter((id) => !vectorOf.has(id)),
    );
    const exact = await embed(others.map((memory) => memory.content));
    others.forEach((memory, k) => exact && vectorOf.set(memory.id, exact[k]!));
    return texts.map(({ project }, i) => {
      const cosineTo = (id: string, rounded?: number) => {
        const vector = vectorOf.get(id);
        return vector ? dot(found[i]!, vector) : rounded!;
      };
      const byVector = candidates[i]!.map((hit) => ({
        id: hit.id,
        cosine: cosineTo(hit.id, hit.cosine),
      }));
      const known = new Set(byVector.map((hit) => hit.id));
      const byText = waiting.flatMap((memory) =>
        memory.project === project && !known.has(memory.id)
          ? [{ id: memory.id, cosine: cosineTo(memory.id) }]
          : []
      );
      return [...byVector, ...byText].sort((a, b) => b.cosine - a.cosine);
    });
  };
}

/**
 * The embeddings, or undefined when the model cannot be used or does not
 * answer within `count` seconds: a model server that hangs makes the check by
 * words alone, not a remember that hangs.
 */
async function within(
  count: number,
  embedding: Promise<Float32Array[]>,
): Promise<Float32Array[] | undefined> {
  const settled = embedding.catch((error) => {
    if (isModelFailure(error)) return undefined;
    throw error;
  });
  // A timer that holds the process only while the check waits: cleared as soon as it is over.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), count * 1000);
  });
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The cosine of two unit vectors. */
function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
