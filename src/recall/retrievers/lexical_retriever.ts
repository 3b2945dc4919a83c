/**
 * The lexical signal: BM25 over each source's words, ranked across sources
 * by each score's share of the best reachable.
 * @module
 */
import { type Candidate, CANDIDATES, listGate, type Retriever } from "../retriever.ts";
import type { LexicalSearch, Source } from "../types.ts";

/** The lexical signal over `lexical`; not asked in vector mode. */
export function lexicalRetriever(lexical: LexicalSearch): Retriever {
  return {
    signal: "lexical",
    reads: [],
    retrieve(ask) {
      const found = new Map<Source, Candidate[]>();
      const { request } = ask;
      if (request.mode === "vector") return Promise.resolve(found);
      for (const source of request.sources) {
        const hits = lexical.search(request.query, {
          sources: [source],
          project: request.project ?? null,
          limit: CANDIDATES * ask.overfetch(source),
        });
        const admit = listGate(ask, source);
        found.set(
          source,
          hits.filter((hit) => admit(hit.id))
            .map((hit) => ({ ids: [hit.id], evidence: hit.share, score: hit.score })),
        );
      }
      return Promise.resolve(found);
    },
  };
}
