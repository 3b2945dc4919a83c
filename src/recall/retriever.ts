/**
 * A retriever is one of recall's signals (vectors, words, context, named
 * definitions, the graph walk, a file's meaning) behind one interface: asked a question, it
 * answers each source's candidates, best first, with the evidence that ranks
 * them against the other sources' (see `fuse_sources.ts`). Recall runs the
 * retrievers, fuses their lists and ranks; a new signal is a new retriever.
 * @module
 */
import type { VectorLag } from "./vector_lag.ts";
import type { Signal, SignalWeights } from "./fuse.ts";
import type { LoweredKind, LoweredKindName } from "./path_priors.ts";
import type { SessionPipeline } from "./session_files.ts";
import type { RecallRequest, Source } from "./types.ts";

/** How many candidates each list keeps per source before fusion. */
export const CANDIDATES = 50;

/** One entry of a signal's list: documents that share a rank (the chunks of one file), or one. */
export interface Candidate {
  ids: readonly string[];
  /**
   * What ranks it against other sources' entries of the same signal (see
   * `fuse_sources.ts`): a vector's cosine distance (lower is better); a
   * lexical or context score's share of the best reachable, the graph walk's
   * score (higher is better); none for named definitions (0).
   */
  evidence: number;
  /** The signal's own score (BM25, distance, PageRank), shown with the result. */
  score: number;
}

/** A signal's candidates per source, each list best first. */
export type Candidates = ReadonlyMap<Source, readonly Candidate[]>;

/** The question as every retriever sees it. */
export interface Ask {
  request: RecallRequest;
  /**
   * How many times more candidates a source's search fetches, since a filter
   * (language, path, the asking session's own turns) will drop some.
   */
  overfetch(source: Source): number;
  /** Whether a document passes the request's filters. */
  keep(source: Source, id: string): boolean;
  /**
   * The kinds of code a document is that recall may lower (a test, the docs,
   * a build file: see `path_priors.ts`), whatever the query asks for; none
   * for the product's code, memories and turns.
   */
  kindsOf(source: Source, id: string): readonly LoweredKind[];
  /**
   * The kinds of code the question asks for, which recall does not lower:
   * those its first line names and those of the folder it is narrowed to.
   */
  asked: ReadonlySet<LoweredKindName>;
  /**
   * The question's vectors: one, or one per window of a question longer than
   * the model reads; undefined when recall answers by words (a note says why).
   */
  vectors: Promise<Float32Array[] | undefined>;
  /** The file-aware context of the asking session, when turns are asked for. */
  sessions?: SessionPipeline;
  /** The asking session's turns that matched and were left out, being still in its context. */
  leftInContext: ReadonlySet<string>;
  /** What the search misses while vectors are computed, when the question is asked by meaning. */
  vectorLag?: VectorLag;
  /** A source's fusion weights (the graph walk seeds itself with a fusion). */
  weightsOf(source: Source): SignalWeights;
  /** Adds a caveat to the answer. */
  note(text: string): void;
}

/**
 * A list's gate: admits the documents that pass the request's filters, up to
 * `cap` of the product's code and, counted apart, up to `cap` of the code
 * recall may lower, so that pages of docs or tests matching every word
 * cannot crowd the code out of the candidates (memories and turns are never
 * lowerable: they all count against `cap`).
 */
export function listGate(ask: Ask, source: Source, cap = CANDIDATES): (id: string) => boolean {
  const admitted = { product: 0, lowerable: 0 };
  return (id) => {
    if (!ask.keep(source, id)) return false;
    const kind = ask.kindsOf(source, id).length > 0 ? "lowerable" : "product";
    if (admitted[kind] >= cap) return false;
    admitted[kind]++;
    return true;
  };
}

/** The ids of `source` that the vector and lexical lists of `earlier` found. */
export function listedByMeaningOrWords(
  earlier: ReadonlyMap<Signal, Candidates>,
  source: Source,
): Set<string> {
  return new Set(
    [earlier.get("vector"), earlier.get("lexical")].flatMap((lists) =>
      (lists?.get(source) ?? []).flatMap((candidate) => candidate.ids)
    ),
  );
}

/** One of recall's signals. */
export interface Retriever {
  readonly signal: Signal;
  /** The signals whose lists it reads; it runs once they are in. */
  readonly reads: readonly Signal[];
  /**
   * Each requested source's candidates that pass the request's filters, at
   * most {@linkcode CANDIDATES} per source and as many again of the code
   * recall may lower (see {@linkcode listGate}); no entry for a source it has
   * nothing to say about, and an empty map when the request does not use it.
   */
  retrieve(ask: Ask, earlier: ReadonlyMap<Signal, Candidates>): Promise<Candidates>;
}

/**
 * Runs `retrievers` in waves: those whose `reads` are in run together (so a
 * query is embedded while the words are searched), then those that read
 * them. Resolves to each signal's candidates.
 */
export async function retrieveAll(
  retrievers: readonly Retriever[],
  ask: Ask,
): Promise<Map<Signal, Candidates>> {
  const found = new Map<Signal, Candidates>();
  let waiting = [...retrievers];
  while (waiting.length > 0) {
    const ready = waiting.filter((r) =>
      r.reads.every((signal) => found.has(signal) || !waiting.some((w) => w.signal === signal))
    );
    if (ready.length === 0) {
      throw new Error(`retrievers read each other: ${waiting.map((r) => r.signal).join(", ")}`);
    }
    const lists = await Promise.all(ready.map((r) => r.retrieve(ask, found)));
    ready.forEach((r, i) => found.set(r.signal, lists[i]!));
    waiting = waiting.filter((r) => !ready.includes(r));
  }
  return found;
}
