/**
 * "Where is X done?": recall over indexed code alone, with its language and
 * path filters, for `cairn search-code` and the `search_code` tool alike.
 * @module
 */
import { z } from "zod";
import { DEFAULT_RESULTS, MAX_QUERY_CHARS } from "../recall/recall.ts";
import { checkLanguage, checkPathPrefix } from "./code_filters.ts";
import { closest } from "../../text/did_you_mean.ts";
import type { Cairn } from "./cairn.ts";
import type { RecallAnswer } from "../recall/answer.ts";

/** What `searchCode` accepts. */
export const SearchCodeInput = z.object({
  query: z.string().trim().min(1, "the query is empty; say what code to look for")
    .max(MAX_QUERY_CHARS),
  /** One project's code; every project's when absent. */
  project: z.string().trim().min(1).max(200).optional(),
  /** Only code in this language (`python`, `markdown`, …). */
  language: z.string().optional(),
  /** Only code under this folder or file, relative to the project's root (`src/auth`). */
  path: z.string().min(1).max(1000).optional(),
  /** Results wanted; recall caps them at 50 and says so. */
  limit: z.number().int().min(1).default(DEFAULT_RESULTS),
});

/**
 * The chunks that best answer `query`, ranked as `recall` ranks code (hybrid:
 * vectors, words, whole files, graph), filtered by language and path before
 * the cut. A project no code is indexed under is refused with what to do.
 */
export async function searchCode(
  cairn: Pick<Cairn, "recall" | "code">,
  input: z.input<typeof SearchCodeInput>,
): Promise<RecallAnswer> {
  const { query, project, language, path, limit } = SearchCodeInput.parse(input);
  const answer = await cairn.recall.run({
    query,
    project: project ?? null,
    sources: ["code"],
    ...(language === undefined ? {} : { language: checkLanguage(language) }),
    ...(path === undefined ? {} : { pathPrefix: checkPathPrefix(path) }),
    limit,
    mode: "hybrid",
  });
  // An unknown project finds nothing, so only an empty answer is worth the
  // look at which projects exist (it reads the log once per process).
  if (project !== undefined && answer.items.length === 0) await cairn.code.status(project);
  return withEmptyCodeNotes(cairn, answer, { ...(path ? { path } : {}) });
}

/**
 * `answer`, with a note when it found no code because of what it was asked:
 * a project no code is indexed under, or a path no indexed file is in.
 */
export async function withEmptyCodeNotes(
  cairn: Pick<Cairn, "code">,
  answer: RecallAnswer,
  { project, path }: { project?: string; path?: string },
): Promise<RecallAnswer> {
  if (answer.items.length > 0) return answer;
  const notes = [...answer.notes];
  const known = (await cairn.code.projects()).map((p) => p.name);
  if (project !== undefined && !known.includes(project)) {
    const guess = closest(project, known);
    const hint = guess
      ? ` (did you mean ${guess}?)`
      : known.length
      ? ` (indexed: ${known.slice(0, 10).join(", ")})`
      : "";
    notes.push(`no code is indexed under project "${project}"${hint}`);
  } else if (path !== undefined && !(await cairn.code.holdsUnder(checkPathPrefix(path), project))) {
    notes.push(`no indexed file is at or under "${path}"`);
  }
  return { ...answer, notes };
}
