/**
 * What the code benchmark asks for each issue and what it keeps of one
 * repository's run: cairn's asks, the outside baselines, and the timings of
 * indexing (saved as `owner+name.json` in CAIRN_BENCH_WORK).
 * @module
 */
import type { Ranking } from "./code_scores.ts";

const MODES = ["hybrid", "lexical", "vector"] as const;

/**
 * cairn's asks: each mode as a user asks, over every file the index holds,
 * and hybrid restricted to the language (`language: python`, say)
 * beside it.
 */
export const ASKS = [
  ...MODES.map((mode) => ({ system: mode, mode, filtered: false })),
  { system: "hybrid-language", mode: "hybrid", filtered: true },
] as const;

/** Every ranked system: cairn's asks, BM25 over whole files, and grep. */
export const SYSTEMS = [...ASKS.map((ask) => ask.system), "bm25", "grep"] as const;

/** A ranked system. */
export type System = typeof SYSTEMS[number];

/** Results asked of cairn per query: enough chunks to reach 10 distinct files most of the time. */
export const LIMIT = 50;

/** One repository's run: its rankings and the timings of indexing it. */
export interface RepoRun {
  repo: string;
  instances: number;
  commits: number;
  files: number;
  chunks: number;
  /** Wall time of the first `cairn index`, embeddings included. */
  firstIndexSeconds: number;
  /** The index's own time before embeddings (scan, chunk, log, graph and text). */
  firstChunkSeconds: number;
  peakRssMiB: number;
  noChangeSeconds: number;
  /** Each move between commits: files written or removed, and `cairn index`'s wall time. */
  moves: Array<{ files: number; seconds: number }>;
  rankings: Record<string, Record<System, Ranking>>;
  truncatedQueries: number;
}

/**
 * A run as saved, in today's form: runs saved when the filtered ask was
 * always Python's name it `hybrid-python`.
 */
export function upgradeRun(run: RepoRun): RepoRun {
  for (const systems of Object.values(run.rankings)) {
    const old = systems as Record<string, Ranking | undefined>;
    if (old["hybrid-python"] && !old["hybrid-language"]) {
      old["hybrid-language"] = old["hybrid-python"];
      delete old["hybrid-python"];
    }
  }
  return run;
}
