import { localServer } from "./local_server.ts";

/** A deterministic bag-of-words embedding: a fast, offline model for tests. */
export function bagOfWords(text: string): number[] {
  const vector = new Array(16).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let h = 0;
    for (const c of word) h = (h * 31 + c.charCodeAt(0)) % 16;
    vector[h] += 1;
  }
  return vector;
}

/** The store settings naming a bag-of-words endpoint at `url`. */
export function bagOfWordsEmbedder(url: string) {
  return { kind: "http", base_url: `${url}/v1`, model: "bow", dims: 16 };
}

/**
 * An OpenAI-compatible embeddings endpoint on 127.0.0.1 answering with
 * {@linkcode bagOfWords}. Requests with a text holding `holdWord` wait until
 * `release()` (a model busy for as long as a test needs; `held` tells when one
 * came); others answer at once.
 * Disposing it releases them first.
 */
export function bagOfWordsServer(holdWord?: string) {
  const gate = Promise.withResolvers<void>();
  const arrived = Promise.withResolvers<void>();
  const server = localServer(async (request) => {
    const { input } = await request.json() as { input: string[] };
    if (holdWord && input.some((text) => text.includes(holdWord))) {
      arrived.resolve();
      await gate.promise;
    }
    return Response.json({
      data: input.map((text, index) => ({ index, embedding: bagOfWords(text) })),
    });
  });
  return {
    url: server.url,
    requests: server.requests,
    /** Resolves once a request holding the word has arrived (and waits). */
    held: arrived.promise,
    release: () => gate.resolve(),
    [Symbol.asyncDispose]: async () => {
      gate.resolve();
      await server[Symbol.asyncDispose]();
    },
  };
}
