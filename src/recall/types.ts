import type { LoweredKindName } from "./path_priors.ts";
import type { FileHit } from "../../projections/vectors/vectors_projection.ts";
import type { SignalWeights } from "./fuse.ts";

/** What recall searches: memories, indexed code, past agent sessions, the graph's entities. */
export type Source = "memory" | "code" | "turn" | "entity";

/** How recall ranks: all signals, or one alone (ablations, or no model loaded). */
export type RecallMode = "hybrid" | "vector" | "lexical";

/** The lexical index as recall uses it. */
export interface LexicalSearch {
  search(
    query: string,
    options: { sources: Source[]; project?: string | null; limit: number },
  ): Array<{ source: Source; id: string; score: number; share: number }>;
  /**
   * Documents matched through what surrounds them, in groups ranked together:
   * a memory with its neighbouring turns, the chunks of a whole file (see the
   * text projection).
   */
  searchContext(
    query: string,
    options: { source: Source; project?: string | null; limit: number },
  ): Array<{ ids: string[]; score: number; share: number }>;
  /** How much `text` could tell the documents of `sources` apart: the idf of the terms they hold. */
  termWeight(text: string, sources: readonly Source[]): number;
}

export type { FileHit };

/** The vector index as recall uses it; ids come back as `<source>:<id>`. */
export interface VectorSearch {
  search(
    source: Source,
    query: Float32Array,
    options: { project?: string | null; limit: number },
  ): Array<{ id: string; distance: number }>;
  /**
   * The code files nearest `query` by their chunks' vectors pooled, nearest
   * first, each with its chunks' ids.
   */
  searchFiles(
    query: Float32Array,
    options: { project?: string | null; limit: number },
  ): FileHit[];
}

/** A question for recall. */
export interface RecallRequest {
  query: string;
  /** Search within this project (plus global memories); all projects when absent. */
  project?: string | null;
  sources: Source[];
  /** Only code in this language (`python`, `markdown`, …); memories and turns are not filtered. */
  language?: string;
  /** Only code under this folder (or this file), relative to the project's root: `src/auth`. */
  pathPrefix?: string;
  limit: number;
  mode: RecallMode;
  weights?: Partial<SignalWeights>;
  /**
   * What chunks of each kind of file the query does not ask for (tests,
   * changelogs, documentation) are multiplied by: LOWERED_FILE_PRIOR unless
   * given, 1 turns the kind's rule off (tuning).
   */
  lowerFactors?: Partial<Record<LoweredKindName, number>>;
  /** The asking agent's session: its turns still in its context (after its last compact boundary) are left out. */
  session?: string;
  /**
   * The file-aware pipeline for turns (see `session_files.ts`): on by default;
   * `false` turns it off (an ablation), numbers override its tuned ones.
   */
  sessionFiles?: false | { threshold?: number; fileDistance?: number };
}

/** How one hit was found: its rank and raw score in each list that had it. */
export interface HitComponents {
  vector?: { rank: number; distance: number };
  lexical?: { rank: number; score: number };
  context?: { rank: number; score: number };
  graph?: { rank: number; ppr: number };
  /**
   * Its rank among the definitions the query names (a stack frame,
   * `Request.send`) and, when it asks for tests, the tests that call them.
   */
  mention?: { rank: number };
  /** Its file's rank among the files nearest in meaning (their chunks pooled), and the distance. */
  file?: { rank: number; distance: number };
  fused: number;
  /** The kind of file (test file, changelog) whose fused score was lowered, and by what factor. */
  prior?: { kind: string; factor: number };
  /** Its qualified name is the symbol the query named, so it was put first. */
  namesSymbol?: true;
  /** The cross-encoder's score, when a reranker reordered the top results. */
  rerank?: number;
}

/** One ranked result, before it is hydrated for display. */
export interface RankedHit {
  source: Source;
  /** The document's id within its source (memory id, chunk id, `<session>:<line>`). */
  id: string;
  /** Standard score across sources: higher is better. */
  score: number;
  components: HitComponents;
}

/** What recall found, and anything the caller should know about it. */
export interface RecallResult {
  hits: RankedHit[];
  /** Plain-language caveats: semantic search not ready, results capped, … */
  notes: string[];
}
