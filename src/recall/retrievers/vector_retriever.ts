/**
 * The vector signal: each source's documents nearest the question's vector
 * (cosine distance; with a window of a long question each, the nearest
 * window's). Memories and code farther than the turns' threshold are no
 * evidence of meaning; turns go through the file-aware session pipeline.
 * @module
 */
import { lagText, waitingCount } from "../vector_lag.ts";
import { type Candidate, CANDIDATES, listGate, type Retriever } from "../retriever.ts";
import { TURN_DISTANCE_THRESHOLD } from "../session_files.ts";
import type { Source, VectorSearch } from "../types.ts";

/** What the vector signal reads. */
export interface VectorDeps {
  vectors?: VectorSearch;
}

/** The vector signal over `deps`; says how many documents still wait for their vectors. */
export function vectorRetriever(deps: VectorDeps): Retriever {
  return {
    signal: "vector",
    reads: [],
    async retrieve(ask) {
      const found = new Map<Source, Candidate[]>();
      const queries = await ask.vectors;
      const vectors = deps.vectors;
      if (!queries || !vectors) return found;
      const { request } = ask;
      const lag = ask.vectorLag;
      if (lag && waitingCount(lag) > 0) {
        ask.note(
          `semantic search is catching up: ${lagText(lag)} ${
            waitingCount(lag) === 1 ? "has" : "have"
          } no vector yet; words and the graph find them already`,
        );
      }
      for (const source of request.sources) {
        const options = {
          project: request.project ?? null,
          limit: CANDIDATES * ask.overfetch(source),
        };
        let hits: Array<{ id: string; distance: number }> = [];
        const admit = listGate(ask, source);
        for (const hit of nearest(queries.map((query) => vectors.search(source, query, options)))) {
          const id = hit.id.slice(source.length + 1);
          // Turns have their own threshold (the file-aware pipeline below).
          if (source !== "turn" && hit.distance > TURN_DISTANCE_THRESHOLD) break;
          if (!admit(id)) continue;
          hits.push({ id, distance: hit.distance });
        }
        if (source === "turn" && ask.sessions) hits = ask.sessions.vectorList(hits);
        found.set(
          source,
          hits.map((hit) => ({ ids: [hit.id], evidence: hit.distance, score: hit.distance })),
        );
      }
      return found;
    },
  };
}

/**
 * One list of the hits of several searches, nearest first, each document once
 * at its nearest distance; one search's list as it is.
 */
function nearest(
  lists: ReadonlyArray<ReadonlyArray<{ id: string; distance: number }>>,
): ReadonlyArray<{ id: string; distance: number }> {
  if (lists.length === 1) return lists[0]!;
  const best = new Map<string, number>();
  for (const hit of lists.flat()) {
    const seen = best.get(hit.id);
    if (seen === undefined || hit.distance < seen) best.set(hit.id, hit.distance);
  }
  return [...best].map(([id, distance]) => ({ id, distance }))
    .sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : 1));
}
