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
  /** False while the model still loads in a server: then only the same text is a duplicate. */
  modelReady?: () => boolean;
}

/**
 * Finds, for each text, the memories of its project nearest in meaning,
 * closest first, with their exact cosines: the vector index (int8) finds the
 * candidates, and their embeddings (from the cache) measure them, so a bar
 * like `CONTRADICTION_COSINE` is not moved by the index's rounding.
 */
export function nearestMemories(deps: NearestMemoryDeps): NearestMemory {
  return async (texts) => {
    if (deps.modelReady?.() === false) return texts.map(() => []);
    const [embedder, vectors] = [deps.embedder(), deps.vectors()];
    const projects = new Set(texts.map((text) => text.project));
    const waitingIds = (await vectors.waitingMemories(deps.checkpoint())).slice(
      -WAITING_COMPARED,
    );
    const waiting = (await deps.read(waitingIds)).filter((memory) => projects.has(memory.project));
    const embed = (contents: string[]) => withinCheck(embedder.embedDocuments(contents, true));
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
 * answer in time: a model server that hangs makes the check by words alone,
 * not a remember that hangs.
 */
async function withinCheck(
  embedding: Promise<Float32Array[]>,
): Promise<Float32Array[] | undefined> {
  const settled = embedding.catch((error) => {
    if (isModelFailure(error)) return undefined;
    throw error;
  });
  return await Promise.race([settled, seconds(CHECK_SECONDS)]);
}

/** The cosine of two unit vectors. */
function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Resolves to undefined after `count` seconds, without keeping the process alive. */
function seconds(count: number): Promise<undefined> {
  return new Promise((resolve) =>
    Deno.unrefTimer(setTimeout(() => resolve(undefined), count * 1000))
  );
}
