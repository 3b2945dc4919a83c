/**
 * The file-aware pipeline for session turns: file paths are the strongest
 * link between sessions, so a query that names a file (`ci.yml`,
 * `src/ingest/`, `ingest.rs`) finds the turns that touched it even when no
 * other word is shared; the turn vector list keeps only close turns (or turns
 * that touched a named file); and the asking session's turns still in its
 * context are left out. See docs/decisions.md for the numbers.
 * @module
 */
import type { KuzuDb } from "../../projections/graph/kuzu.ts";
import {
  compactBoundary,
  sessionsStartingWith,
  turnsTouchingHints,
} from "../../projections/graph/queries/sessions.ts";
import { isPathLike } from "../../text/code_mentions.ts";
import type { RecallRequest } from "./types.ts";

/**
 * Cosine distance beyond which a document is no evidence by meaning: it
 * leaves the vector list (a turn stays when it touched a named file). With
 * bge-small a question's nearest turns all sit closer than this (bench
 * sessions: 0.45 and no threshold rank alike; 0.40 trades recall at 10 for
 * precision at 1), and unrelated text farther: code for LoCoMo's questions at
 * 0.52 at the median, the nearest one (bench mixed).
 */
export const TURN_DISTANCE_THRESHOLD = 0.45;
/**
 * The distance a turn that touched a named file is given (when it is farther)
 * or enters at (when only its files found it). Not "just inside the threshold"
 * as in the seeds: bge-small's distances run low, and there a file match ranks
 * below everything (bench sessions, vector only: file questions Hit@1 0.70 at
 * 0.35–0.40, 0.89 at 0.05–0.15).
 */
export const FILE_MATCH_DISTANCE = 0.15;
/** Most turns the file-mention lookup returns. */
const FILE_MATCHES = 50;

/** The pipeline's numbers, overridable per call for tuning. */
export interface SessionFileOptions {
  threshold: number;
  fileDistance: number;
}

/** A vector candidate: a turn id and its cosine distance to the query. */
export interface TurnCandidate {
  id: string;
  distance: number;
}

/** A turn whose file mentions match the query's hints. */
export interface FileMatch {
  id: string;
  /** How many of the query's hints its files matched. */
  hints: number;
  /** How many of its files matched a hint. */
  files: number;
}

/** What the pipeline decided for one request. */
export interface SessionPipeline {
  /** File-path hints read from the query. */
  hints: string[];
  /** Turns whose files match the hints, best first. */
  fileMatches: FileMatch[];
  /** True for a turn still in the asking session's context (left out of every list). */
  inContext(id: string): boolean;
  /** What to tell the caller about the asking session: an id no ingested session has. */
  note?: string;
  /** The turn vector list with the threshold and the file matches applied (see {@linkcode turnVectorList}). */
  vectorList(hits: readonly TurnCandidate[]): TurnCandidate[];
}

/**
 * Builds the pipeline for a request: reads the query's file hints, looks up
 * the turns that touched those files, and finds where the asking session's
 * context starts. With `sessionFiles: false` only the in-context exclusion is
 * kept (the ablation of the benchmark).
 */
export async function sessionPipeline(
  graph: KuzuDb,
  request: Pick<RecallRequest, "query" | "project" | "session" | "sessionFiles">,
): Promise<SessionPipeline> {
  const asking = request.session === undefined
    ? undefined
    : await askingSession(graph, request.session);
  const inContext = asking?.session === undefined
    ? () => false as boolean
    : await contextOf(graph, asking.session);
  const note = asking?.note === undefined ? {} : { note: asking.note };
  if (request.sessionFiles === false) {
    return { hints: [], fileMatches: [], inContext, vectorList: (hits) => [...hits], ...note };
  }
  const options: SessionFileOptions = {
    threshold: request.sessionFiles?.threshold ?? TURN_DISTANCE_THRESHOLD,
    fileDistance: request.sessionFiles?.fileDistance ?? FILE_MATCH_DISTANCE,
  };
  const hints = fileHints(request.query);
  const fileMatches = (await turnsTouching(graph, hints, request.project ?? null))
    .filter((match) => !inContext(match.id));
  return {
    hints,
    fileMatches,
    inContext,
    vectorList: (hits) => turnVectorList(hits, fileMatches, options),
    ...note,
  };
}

/**
 * The ingested session `given` names: its whole id, or the start of one
 * (answers show ids cut to 8 characters); otherwise none, and why.
 */
async function askingSession(
  graph: KuzuDb,
  given: string,
): Promise<{ session?: string; note?: string }> {
  const found = await sessionsStartingWith(graph, given, 2);
  if (found.includes(given)) return { session: given };
  if (found.length === 1) return { session: found[0]! };
  return {
    note: found.length === 0
      ? `no ingested session is ${given}: none of its turns were left out`
      : `${given} starts more than one session's id: give the whole id to leave its turns out`,
  };
}

/**
 * The words of a query that name a file or folder: paths with `/`
 * (`src/auth/`, `.github/workflows/ci.yml`), names with a known extension
 * (`ingest.rs`, `ci.yml`) and the usual extensionless files (`Makefile`),
 * lower-cased, without `./`, a trailing `/`, quotes or sentence punctuation.
 *
 * @example
 * ```ts
 * fileHints("why was ci.yml changed, and what about `src/ingest/`?"); // ["ci.yml", "src/ingest"]
 * ```
 */
export function fileHints(query: string): string[] {
  const hints = new Set<string>();
  for (const raw of query.split(/[\s,;()[\]{}<>"`|]+/)) {
    const word = raw.replace(/^['@]+|['’]s$|[.:!?'’]+$/g, "").replace(/^(\.\/)+/, "");
    if (isPathLike(word)) hints.add(word.replace(/(.)\/+$/, "$1").toLowerCase());
  }
  return [...hints];
}

/**
 * The turns that touched files matching `hints`, ranked by how many hints
 * they match, then how many of their files match, then newest first. A hint
 * matches a file when it is the file's project path, its end (`ingest.rs`,
 * `transcripts/ingest.rs`), an absolute path ending with it, or a folder
 * holding it (`src/ingest`, or `ingest` anywhere in the path).
 */
export async function turnsTouching(
  graph: KuzuDb,
  hints: readonly string[],
  project: string | null,
  limit = FILE_MATCHES,
): Promise<FileMatch[]> {
  return await turnsTouchingHints(graph, { hints, project: project ?? "", limit });
}

/**
 * The seeds' rule for the turn vector list: a turn farther than `threshold`
 * is dropped unless it touched a named file; a turn that touched one is placed
 * no farther than `fileDistance` (just inside the threshold), and turns found
 * only through their files enter there, in the file lookup's order. Sorted by
 * distance, one entry per turn.
 */
export function turnVectorList(
  hits: readonly TurnCandidate[],
  fileMatches: readonly FileMatch[],
  { threshold, fileDistance }: SessionFileOptions,
): TurnCandidate[] {
  const fileRank = new Map(fileMatches.map((match, i) => [match.id, i]));
  const best = new Map<string, TurnCandidate & { order: number }>();
  const add = (id: string, distance: number, order: number) => {
    const seen = best.get(id);
    if (!seen || distance < seen.distance) best.set(id, { id, distance, order });
  };
  hits.forEach((hit, i) => {
    const matched = fileRank.has(hit.id);
    if (matched) add(hit.id, Math.min(hit.distance, fileDistance), i);
    else if (hit.distance <= threshold) add(hit.id, hit.distance, i);
  });
  fileMatches.forEach((match, i) => add(match.id, fileDistance, hits.length + i));
  return [...best.values()]
    .sort((a, b) =>
      a.distance - b.distance ||
      (fileRank.get(a.id) ?? Infinity) - (fileRank.get(b.id) ?? Infinity) || a.order - b.order
    )
    .map(({ id, distance }) => ({ id, distance }));
}

/**
 * Which of a session's turns are still in its agent's context: those after
 * its last compact boundary (all of them when it never compacted). Turns
 * before the boundary were replaced by a summary, so recall may bring them back.
 */
async function contextOf(graph: KuzuDb, session: string): Promise<(id: string) => boolean> {
  const boundary = await compactBoundary(graph, session) ?? -1;
  const prefix = `${session}:`;
  return (id) => {
    if (!id.startsWith(prefix)) return false;
    const line = Number(id.slice(prefix.length));
    return Number.isInteger(line) && line > boundary;
  };
}
