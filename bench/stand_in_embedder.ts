/**
 * A cheap stand-in for an embedding model, served as an OpenAI-compatible
 * `/v1/embeddings` endpoint on 127.0.0.1: each text becomes a signed
 * feature-hashing of its lower-cased words (384 dimensions, unit length). It
 * costs microseconds where the shipped model costs tens of milliseconds, so the
 * scale suite can fill a store with a million chunks and measure everything
 * but the model.
 * @module
 */

/** Dimensions of the stand-in's vectors (the shipped model's). */
export const STAND_IN_DIMS = 384;

/** A running stand-in endpoint; `baseUrl` goes into config.json. */
export interface StandInEmbedder extends AsyncDisposable {
  baseUrl: string;
}

/** Starts the endpoint on a free port of 127.0.0.1. */
export function startStandInEmbedder(): StandInEmbedder {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const { input } = await request.json() as { input: string[] };
      return Response.json({
        object: "list",
        model: "stand-in",
        data: input.map((text, index) => ({
          object: "embedding",
          index,
          embedding: Array.from(hashedVector(text)),
        })),
      });
    },
  );
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** The signed feature-hashing of `text`'s words, L2-normalised. */
export function hashedVector(text: string): Float32Array {
  const vector = new Float32Array(STAND_IN_DIMS);
  vector[0] = 1e-3; // a text with no words still gets a direction
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const hash = fnv1a(word);
    const at = hash % STAND_IN_DIMS;
    vector[at] = vector[at]! + (hash & 0x80000000 ? -1 : 1);
  }
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

function fnv1a(word: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    hash ^= word.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
