/**
 * The lexical signal: BM25 over every source's words, one search for all,
 * ranked across sources by each score's share of the best reachable.
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
      const hits = lexical.search(request.query, {
        sources: request.sources,
        project: request.project ?? null,
        limit: CANDIDATES * request.sources.length *
          Math.max(...request.sources.map(ask.overfetch)),
      });
      for (const source of request.sources) {
        const list: Candidate[] = [];
        const admit = listGate(ask, source);
        for (const hit of hits) {
          if (hit.source !== source || !admit(hit.id)) continue;
          list.push({ ids: [hit.id], evidence: hit.share, score: hit.score });
        }
        found.set(source, list);
      }
      return Promise.resolve(found);
    },
  };
}
