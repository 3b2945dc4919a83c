/**
 * The question as recall's retrievers see it: the request, its filters, the
 * query's vectors (computed once, while the words are searched), the asking
 * session's context and each source's fusion weights.
 * @module
 */
import type { KuzuDb } from "../../projections/graph/kuzu.ts";
import type { CodeFiles } from "./graph_neighbourhood.ts";
import { CODE_WEIGHTS, DEFAULT_WEIGHTS, MEMORY_WEIGHTS, type SignalWeights } from "./fuse.ts";
import { type QueryModel, queryVectors } from "./query_vector.ts";
import { askedKinds, kindsOf as kindsOfPath, type LoweredKind } from "./path_priors.ts";
import type { Ask } from "./retriever.ts";
import { sessionPipeline } from "./session_files.ts";
import type { LexicalSearch, RecallRequest, Source } from "./types.ts";
import { lagWithin, type VectorLag } from "./vector_lag.ts";

/** How many times more candidates are fetched when a filter (language, path) drops some. */
const FILTER_OVERFETCH = 4;
/**
 * How many times more code candidates are fetched, since the kinds of file
 * recall may lower are counted apart from the product's code (`listGate`).
 */
const LOWERABLE_OVERFETCH = 4;

/** What recall's ranking reads beyond its retrievers: the model, the session context, code facts. */
export interface RankingDeps extends QueryModel {
  /** The words of what is searched, to rate a long query's windows (see `query_windows.ts`). */
  lexical?: Pick<LexicalSearch, "termWeight">;
  /** The graph, for the asking session's context when turns are asked for. */
  graph?: KuzuDb;
  /** The language of a code chunk (for the `language` filter). */
  languageOf?: (chunkId: string) => string | undefined;
  /** The path of a code chunk relative to its project's root (for the `pathPrefix` filter). */
  codePath?: (chunkId: string) => string | undefined;
  /** The qualified name of a code chunk (to put a named symbol's definition first). */
  codeName?: (chunkId: string) => string | undefined;
  /**
   * Whether an entity has facts (observations or relations): one with a name
   * alone says nothing that the memories naming it do not.
   */
  hasFacts?: (entity: string) => boolean;
  /** Which file holds which chunk (one part per definition; the graph walk needs no query for it). */
  codeFiles?: CodeFiles;
  /** Documents still waiting for their vectors, and how fast they are being embedded. */
  vectorLag?: () => Promise<VectorLag>;
  /** How many documents of `source` in `project` (every project when null) have a vector. */
  vectorsHeld?: (source: Source, project: string | null) => number;
}

/**
 * The {@linkcode Ask} of `request`: starts embedding the query (unless it is
 * answered by words) and reads the asking session's context meanwhile.
 */
export async function askOf(
  deps: RankingDeps,
  request: RecallRequest,
  note: (text: string) => void,
): Promise<Ask> {
  const weight = (text: string) => deps.lexical?.termWeight(text, request.sources) ?? 0;
  const vectors = request.mode === "lexical"
    ? Promise.resolve(undefined)
    : queryVectors(deps, request.query, request.mode, weight, note);
  const sessions = request.sources.includes("turn") && deps.graph
    ? await sessionPipeline(deps.graph, request)
    : undefined;
  const lag = request.mode !== "lexical" && deps.vectorLag
    ? lagWithin(await deps.vectorLag(), request.sources, request.project ?? null)
    : undefined;
  const coverage = vectorCoverage(deps, request, lag);
  const leftInContext = new Set<string>();
  const filtered = request.language !== undefined || request.pathPrefix !== undefined;
  const kinds = new Map<string, readonly LoweredKind[]>();
  return {
    request,
    // The asking session's own turns are the closest to its question and are left out: fetch more.
    overfetch: (source) =>
      (filtered || (source === "turn" && request.session !== undefined) ? FILTER_OVERFETCH : 1) *
      (source === "code" ? LOWERABLE_OVERFETCH : 1),
    keep: (source, id) => {
      if (source === "turn" && sessions?.inContext(id) === true) leftInContext.add(id);
      if (source === "entity") return deps.hasFacts?.(id) ?? true;
      return source === "turn" ? !leftInContext.has(id) : source !== "code" ||
        ((request.language === undefined || deps.languageOf?.(id) === request.language) &&
          (request.pathPrefix === undefined ||
            underPathPrefix(deps.codePath?.(id), request.pathPrefix)));
    },
    leftInContext,
    kindsOf: (source, id) => {
      const path = source === "code" ? deps.codePath?.(id) : undefined;
      if (path === undefined) return [];
      const known = kinds.get(path) ?? kindsOfPath(path);
      kinds.set(path, known);
      return known;
    },
    asked: askedKinds(request.query, request.pathPrefix),
    vectors,
    ...(sessions ? { sessions } : {}),
    ...(lag ? { vectorLag: lag } : {}),
    weightsOf: (source) => weightsOf(source, request, coverage.get(source) ?? 1),
    note,
  };
}

/**
 * The share of each source's documents (in the asked project) that have a
 * vector, for the sources where some still wait. The files recall lowers
 * (tests, docs, data) are embedded last and not counted: a project whose own
 * code has its vectors is searched by meaning in full.
 */
function vectorCoverage(
  deps: RankingDeps,
  request: RecallRequest,
  lag: VectorLag | undefined,
): Map<Source, number> {
  const coverage = new Map<Source, number>();
  if (!lag || !deps.vectorsHeld) return coverage;
  for (const source of request.sources) {
    const waiting = lag.pending.filter((p) => p.source === source && !p.lowered)
      .reduce((sum, p) => sum + p.documents, 0);
    if (waiting === 0) continue;
    const held = deps.vectorsHeld(source, request.project ?? null);
    coverage.set(source, held / (held + waiting));
  }
  return coverage;
}

/** Whether the project-relative `path` is the file `prefix` or in the folder `prefix`. */
export function underPathPrefix(path: string | undefined, prefix: string): boolean {
  const folder = prefix.replace(/\/+$/, "");
  return path !== undefined && (folder === "" || path === folder || path.startsWith(`${folder}/`));
}

/**
 * The fusion weights of `source`: its own defaults, then what the request
 * sets for every source; the signals read from vectors count in proportion to
 * the share of its documents that have one (`covered`), so that while vectors
 * are still being computed the few that are in do not outrank what words find.
 */
function weightsOf(source: Source, request: RecallRequest, covered: number): SignalWeights {
  const weights = {
    ...DEFAULT_WEIGHTS,
    ...(source === "memory" ? MEMORY_WEIGHTS : source === "code" ? CODE_WEIGHTS : {}),
    ...request.weights,
  };
  return { ...weights, vector: weights.vector * covered, file: weights.file * covered };
}
