/**
 * "Why did this file change?" and "what did we try for the flaky test?": the
 * session turns that touched a file (through the file mentions sessions leave
 * in the graph), newest first, or that are about a topic (through the lexical
 * search over turns), most relevant first.
 * @module
 */
import { z } from "zod";
import type { KuzuDb } from "../../projections/graph/kuzu.ts";
import { sessionCount, turnsTouchingFile } from "../../projections/graph/queries/sessions.ts";
import type { TextProjection } from "../../projections/text.ts";
import { isPathLike } from "../../text/code_mentions.ts";
import { plural } from "../recall/vector_lag.ts";
import { turnHandle } from "../recall/handles.ts";
import { answeringWindow } from "../recall/passage.ts";
import { type TurnRecord, turnRecords } from "../recall/hit_records.ts";
import { aboveCut, byRelevance } from "./relevance_cut.ts";

/** Characters of a turn's text one history line shows (cut at a word, `…` marking the cut). */
const HISTORY_CHARS = 300;

/** Most turns one answer lists. */
export const MAX_HISTORY = 50;

/**
 * How many turns a topic's lexical search asks for: more than an answer
 * lists, so that among turns tied with the last one listed the newest are.
 */
const CANDIDATES = 4 * MAX_HISTORY;

/** What `history` accepts: a file or a topic. */
export const HistoryInput = z.object({
  /** The file: relative to its project's root (`src/a.ts`), absolute, or a bare name (`a.ts`). */
  path: z.string().trim().min(1).max(4096).optional(),
  /** A topic, in words: the turns that share its words, most relevant first. */
  query: z.string().trim().min(1).max(4096).optional(),
  project: z.string().trim().min(1).max(200).optional(),
  limit: z.number().int().min(1).default(10),
}).refine((input) => (input.path === undefined) !== (input.query === undefined), {
  message: "give either a path or a query",
});

/** One turn in a history, with what it did to the file asked about. */
export interface HistoryEntry {
  turn: TurnRecord;
  /** The file as the project knows it (file histories only). */
  path?: string;
  /** The tools that touched the file in that turn (`Read`, `Edit`, `Bash`), each once. */
  tools: string[];
}

/**
 * The turns that touched a file (newest first) or a topic (most relevant
 * first), and what to tell the caller.
 */
export interface SessionHistory {
  entries: HistoryEntry[];
  notes: string[];
}

/** What a history reads: the graph (turns and the files they touched) and the texts. */
export interface HistoryDeps {
  graph: KuzuDb;
  text: TextProjection;
}

/**
 * The history of a file (`path`) or a topic (`query`). For a file, a
 * project-relative path matches itself, an absolute path matches the project
 * file it ends with, and a bare name matches every file of that name; its
 * turns come newest first, as the file changed. For a topic, the turns that
 * share its words come most relevant first, weak matches cut (see
 * {@linkcode aboveCut} and {@linkcode byRelevance}).
 */
export async function sessionHistory(
  deps: HistoryDeps,
  input: z.input<typeof HistoryInput>,
): Promise<SessionHistory> {
  const { path, query, project, limit: asked } = HistoryInput.parse(input);
  const limit = Math.min(asked, MAX_HISTORY);
  const notes = asked > MAX_HISTORY ? [`limit capped at ${MAX_HISTORY}`] : [];
  const entries = path !== undefined
    ? await fileEntries(deps, path, project, limit)
    : await topicEntries(deps, query!, project, limit, notes);
  if (entries.length === 0) {
    const what = path !== undefined ? `touched ${path}` : `is about "${query}"`;
    const read = await sessionCount(deps.graph);
    notes.push(
      read === 0
        ? `no ingested session ${what}: none is read yet; run \`cairn ingest claude\` or \`codex\``
        : `${plural(read, "session")} read, none ${what}${project ? ` in project ${project}` : ""}`,
    );
  }
  return { entries, notes };
}

/**
 * What `cairn history ARG` asks for: a file when ARG looks like one
 * (`src/a.ts`, `ci.yml`, `Makefile`), a topic otherwise.
 */
export function historyTarget(arg: string): { path: string } | { query: string } {
  const word = arg.trim();
  return !/\s/.test(word) && isPathLike(word) ? { path: word } : { query: word };
}

async function fileEntries(
  deps: HistoryDeps,
  path: string,
  project: string | undefined,
  limit: number,
): Promise<HistoryEntry[]> {
  const wanted = path.replaceAll("\\", "/").replace(/^\.\//, "");
  const touches = await turnsTouchingFile(deps.graph, {
    path: wanted,
    project: project ?? "",
    limit,
  });
  const turns = await turnRecords(deps.graph, deps.text, touches.map((touch) => touch.id));
  return touches.flatMap((touch) => {
    const turn = turns.get(touch.id);
    return turn ? [{ turn, path: touch.path, tools: touch.tools.toSorted() }] : [];
  });
}

/** The turns about `query`, most relevant first; a note says how many weak matches were cut. */
async function topicEntries(
  deps: HistoryDeps,
  query: string,
  project: string | undefined,
  limit: number,
  notes: string[],
): Promise<HistoryEntry[]> {
  const hits = deps.text.search(query, {
    sources: ["turn"],
    project: project ?? null,
    limit: CANDIDATES,
  });
  const strong = aboveCut(hits);
  const turns = await turnRecords(deps.graph, deps.text, strong.map((hit) => hit.id));
  const ranked = byRelevance(strong.flatMap(({ id, score }) => {
    const turn = turns.get(id);
    return turn ? [{ turn, score, at: turn.started_at }] : [];
  }));
  const weak = hits.length - strong.length;
  if (weak > 0) {
    const atLeast = hits.length === CANDIDATES ? "at least " : "";
    notes.push(
      `left out ${atLeast}${plural(weak, "turn")} sharing far fewer of its words than the best`,
    );
  }
  return ranked.slice(0, limit).map(({ turn }) => ({ turn, tools: [] }));
}

/** A history as compact markdown: one line per turn. */
export function formatHistory(history: SessionHistory): string {
  const lines = history.entries.map(({ turn, path, tools }) =>
    `- ${turn.started_at.slice(0, 16).replace("T", " ")} session ${
      turnHandle(turn.session, turn.line)
    }` +
    `${path === undefined ? "" : ` (${tools.join(", ")} ${path})`}: ` +
    answeringWindow(turn.text, "", HISTORY_CHARS)
  );
  return [...lines, ...history.notes.map((note) => `> ${note}`)].join("\n");
}
