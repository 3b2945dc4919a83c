/**
 * The file-vector signal: the code files nearest the question by their
 * chunks' vectors pooled, in groups that share a rank. It finds no new
 * chunk: like the context signal, it lifts the chunks the vector and lexical
 * lists found in a file whose meaning as a whole is near the question, and
 * does not flood the answer with every chunk it holds.
 * @module
 */
import { type Candidate, listedByMeaningOrWords, listGate, type Retriever } from "../retriever.ts";
import type { FileHit, Source, VectorSearch } from "../types.ts";

/**
 * How many of the nearest files lend their rank to their chunks (and as many
 * of the files recall may lower, counted apart), as the context signal's
 * whole files do.
 */
const NEAREST_FILES = 10;

/** The file-vector signal over `vectors`; code only, in hybrid mode. */
export function fileVectorRetriever(vectors: VectorSearch): Retriever {
  return {
    signal: "file",
    reads: ["vector", "lexical"],
    async retrieve(ask, earlier) {
      const found = new Map<Source, Candidate[]>();
      const { request } = ask;
      if (!request.sources.includes("code") || request.mode !== "hybrid") return found;
      const queries = await ask.vectors;
      if (!queries) return found;
      const listed = listedByMeaningOrWords(earlier, "code");
      const options = {
        project: request.project ?? null,
        limit: 2 * NEAREST_FILES * ask.overfetch("code"),
      };
      const admit = listGate(ask, "code", NEAREST_FILES);
      const list: Candidate[] = [];
      for (
        const file of nearestFiles(queries.map((query) => vectors.searchFiles(query, options)))
      ) {
        const ids = file.chunks.filter((id) => listed.has(id));
        if (ids.length === 0 || !admit(ids[0]!)) continue;
        list.push({ ids, evidence: file.distance, score: file.distance });
      }
      found.set("code", list);
      return found;
    },
  };
}

/**
 * The files of several searches, nearest first, each once at its nearest
 * distance (a file is its path in its project: its chunks' ids name both).
 */
function nearestFiles(lists: ReadonlyArray<readonly FileHit[]>): FileHit[] {
  const best = new Map<string, FileHit>();
  for (const file of lists.flat()) {
    const key = `${file.path}\0${file.chunks[0]}`;
    const seen = best.get(key);
    if (!seen || file.distance < seen.distance) best.set(key, file);
  }
  return [...best.values()]
    .sort((a, b) => a.distance - b.distance || (a.path < b.path ? -1 : 1));
}
