/**
 * The context signal: documents found through what surrounds them, in groups
 * that share a rank (a memory with its neighbouring turns, the chunks of a
 * whole file). A file lifts the chunks the vector and lexical lists found in
 * it; it does not flood the answer with every chunk it holds.
 * @module
 */
import {
  type Candidate,
  CANDIDATES,
  listedByMeaningOrWords,
  listGate,
  type Retriever,
} from "../retriever.ts";
import type { LexicalSearch, Source } from "../types.ts";

/**
 * How many of the best whole files lend their rank to their chunks (and as
 * many of the files recall may lower, counted apart).
 */
const CONTEXT_FILES = 10;

/** The context signal over `lexical`; not asked in vector mode. */
export function contextRetriever(lexical: LexicalSearch): Retriever {
  return {
    signal: "context",
    reads: ["vector", "lexical"],
    retrieve(ask, earlier) {
      const found = new Map<Source, Candidate[]>();
      const { request } = ask;
      if (request.mode === "vector") return Promise.resolve(found);
      for (const source of request.sources) {
        const listed = listedByMeaningOrWords(earlier, source);
        const list: Candidate[] = [];
        const admitFile = listGate(ask, source, CONTEXT_FILES);
        for (
          const hit of lexical.searchContext(request.query, {
            source,
            project: request.project ?? null,
            limit: source === "code" ? CONTEXT_FILES * ask.overfetch(source) : CANDIDATES,
          })
        ) {
          const ids = hit.ids.filter((id) =>
            source === "code" ? listed.has(id) : ask.keep(source, id)
          );
          if (ids.length === 0 || (source === "code" && !admitFile(ids[0]!))) continue;
          list.push({ ids, evidence: hit.share, score: hit.score });
        }
        found.set(source, list);
      }
      return Promise.resolve(found);
    },
  };
}
