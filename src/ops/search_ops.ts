/**
 * The search operations: recall (hybrid), search (meaning), search-text
 * (words), search-code (code only) and history (past sessions).
 * @module
 */
import { z } from "zod";
import { LANGUAGE_NAMES, languageNamed } from "../ingest/code/source_file.ts";
import { formatDebug, formatJson, formatMarkdown } from "./format.ts";
import { DEFAULT_WEIGHTS, type Signal, type SignalWeights } from "../recall/fuse.ts";
import { DEFAULT_RESULTS, MAX_QUERY_CHARS, MAX_RESULTS } from "../recall/recall.ts";
import type { RecallMode } from "../recall/types.ts";
import { Include, sourcesOf } from "./include.ts";
import { checkPathPrefix } from "../service/code_filters.ts";
import { searchCode as searchCodeIn, withEmptyCodeNotes } from "../service/code_search.ts";
import type { RecallAnswer } from "../recall/answer.ts";
import {
  formatHistory,
  historyTarget,
  type SessionHistory,
  sessionHistory,
} from "../service/session_history.ts";
import { ArgumentsError } from "../errors.ts";
import type { Cairn } from "../service/cairn.ts";
import { operation, type Rendered } from "./operation.ts";
import { timeInput } from "./time_input.ts";

const SIGNALS = Object.keys(DEFAULT_WEIGHTS) as Signal[];
/** `vector=…,lexical=…,…` with the weights recall uses unless told otherwise. */
const DEFAULT_WEIGHTS_TEXT = SIGNALS.map((signal) => `${signal}=${DEFAULT_WEIGHTS[signal]}`)
  .join(",");
const weight = z.number().min(0).max(10);
const project = z.string().min(1).max(200);
const query = z.string().trim().min(1, "query is empty").max(MAX_QUERY_CHARS);
/** A language by any of its names (`Go`, `golang`), as the one name chunks are filed under. */
const language = z.preprocess(
  (name) => typeof name === "string" ? languageNamed(name) ?? name : name,
  z.enum(LANGUAGE_NAMES as [string, ...string[]]),
).optional();
const limit = z.number().int().min(1).max(1000).optional().describe(
  `default ${DEFAULT_RESULTS}; capped at ${MAX_RESULTS}`,
);
const path = z.string().min(1).max(1000).optional().describe("code under this folder, e.g. src/a");
const format = z.enum(["markdown", "json", "debug"]).optional()
  .describe("json adds ids, scores; debug each signal");

const searchInput = {
  query,
  project: project.optional().describe("this project plus global memories; default all"),
  include: z.array(Include).min(1).optional().describe("default all"),
  limit,
  format,
  ...timeInput,
};

const searchOutput = {
  count: z.number(),
  notes: z.array(z.string()),
  results: z.array(z.looseObject({})).optional(),
};

const searchCli = {
  positionals: [{
    key: "query",
    name: "QUERY",
    rest: true,
    missing: "give the question to search for",
  }],
  commas: ["include"],
};

/** A search's answer: compact markdown, JSON with every result, or every score (`debug`). */
function searchAnswer(answer: RecallAnswer, format: string | undefined): Rendered {
  const summary = { count: answer.items.length, notes: answer.notes };
  if (format === "json") {
    const text = formatJson(answer);
    return {
      text,
      data: { ...summary, results: JSON.parse(text).results },
      json: JSON.parse(text),
    };
  }
  const text = format === "debug" ? formatDebug(answer) : formatMarkdown(answer);
  return { text, data: summary, json: JSON.parse(formatJson(answer)) };
}

/** `a=1,b=2` as fusion weights, or a usage error naming the form. */
function weightsOf(text: string): Partial<SignalWeights> {
  const weights: Partial<SignalWeights> = {};
  for (const part of text.split(",")) {
    const [name, value] = part.split("=");
    const signal = SIGNALS.find((known) => known === name);
    const number = Number(value);
    if (name && value !== undefined && !signal) {
      throw new ArgumentsError(
        `--weights: no signal is named "${name}"; the signals are ${SIGNALS.join(", ")}`,
      );
    }
    if (!signal || value === undefined || !Number.isFinite(number)) {
      throw new ArgumentsError(`--weights looks like ${DEFAULT_WEIGHTS_TEXT}, not "${part}"`);
    }
    weights[signal] = number;
  }
  return weights;
}

type SearchInput = z.output<z.ZodObject<typeof searchInput>> & {
  language?: string;
  path?: string;
  mode?: RecallMode;
  session?: string;
  weights?: Partial<SignalWeights>;
};

/** Runs recall in `mode` (or the one asked) over the sources asked. */
function recallIn(mode: RecallMode | undefined) {
  return async (cairn: Cairn, input: SearchInput): Promise<RecallAnswer> => {
    const { as_of, valid_at } = input;
    const sources = sourcesOf(input.include);
    const answer = await cairn.recall.run({
      query: input.query,
      project: input.project ?? null,
      sources,
      ...(input.language ? { language: input.language } : {}),
      ...(input.path ? { pathPrefix: checkPathPrefix(input.path) } : {}),
      ...(input.session ? { session: input.session } : {}),
      limit: input.limit ?? DEFAULT_RESULTS,
      mode: mode ?? input.mode ?? "hybrid",
      ...(input.weights ? { weights: input.weights } : {}),
    }, { ...(as_of ? { as_of } : {}), ...(valid_at ? { valid_at } : {}) });
    if (!sources.includes("code")) return answer;
    return await withEmptyCodeNotes(cairn, answer, {
      ...(input.project ? { project: input.project } : {}),
      ...(input.path ? { path: input.path } : {}),
    });
  };
}

/** What an agent is told of the kinds of file code search lowers, and how to ask for them. */
const LOWERED_CODE =
  "Tests, docs, build, example and data files rank below code unless the query's first line " +
  "or `path` asks for them.";
const LOWERED_CODE_HELP =
  "  Tests, docs, changelogs, build and CI files, examples and data or config files (JSON,\n" +
  "  YAML, TOML...) rank below the code unless the question's first line asks for them\n" +
  '  ("which test covers...", "the docs for...", "the CI workflow", "an example of...",\n' +
  '  "the YAML config") or --path is inside them (--path tests).';

/** `recall`: one ranked, compact answer over memories, code, past sessions and the graph. */
export const recall = operation({
  command: "recall",
  tool: "recall",
  summary: "answer a question from memories, code, past sessions and the graph (hybrid search)",
  description: "Search what cairn knows: memories, indexed code, past agent sessions and graph " +
    "entities, ranked by meaning and words. Use it first when you need project context: " +
    "decisions, conventions, where something lives, what was tried before. " + LOWERED_CODE,
  core: true,
  writes: false,
  input: {
    ...searchInput,
    format,
    language: language.describe("code only in this language"),
    path,
    mode: z.enum(["hybrid", "vector", "lexical"]).optional().describe("default hybrid"),
    session: z.string().min(1).max(200).optional()
      .describe("your session id: leaves out your turns still in context"),
    weights: z.object({
      vector: weight,
      lexical: weight,
      context: weight,
      graph: weight,
      mention: weight,
      file: weight,
    }).partial().strict().optional().describe("fusion weights, 0-10"),
  },
  output: searchOutput,
  cli: {
    ...searchCli,
    parse: { weights: weightsOf },
    values: { weights: DEFAULT_WEIGHTS_TEXT },
    help: "  QUERY       the question; - reads it from standard input (a pasted issue or trace)\n" +
      "  --project   this project's memories, code and sessions, the global memories and the graph\n" +
      "  --include   any of memories,code,sessions,graph (default all)\n" +
      `  --limit     results wanted (default ${DEFAULT_RESULTS}, at most ${MAX_RESULTS})\n` +
      "  --format    markdown (default), json (ids and scores) or debug (every signal)\n" +
      "  --mode      hybrid (default), vector (meaning only) or lexical (words only)\n" +
      "  --as-of     what was known at that ISO 8601 date\n" +
      "  --valid-at  only memories valid at that date (their --valid-from/--valid-to)\n" +
      "  --language  only code in this language (python, typescript, markdown, ...)\n" +
      "  --path      only code under this folder or file of the project, like src/auth\n" +
      "  --weights   how much each signal counts (the defaults shown)\n" +
      "  --session   the asking agent's session id, or its start: its turns still in its context\n" +
      "              are left out\n" +
      "  --batch     FILE.jsonl of questions, one answer line each (with --format jsonl); a line\n" +
      '              is {"id", "query", and any of "project", "include", "language", "mode",\n' +
      '              "session", "markdown": true}\n\n' +
      LOWERED_CODE_HELP,
  },
  run: recallIn(undefined),
  render: (answer: RecallAnswer, input) => searchAnswer(answer, input.format),
});

/** Recall in one mode only, over the sources asked: `search` and `search-text`. */
function searchBy(
  mode: "vector" | "lexical",
  names: { command: string; tool: string; summary: string; description: string },
) {
  return operation({
    ...names,
    core: false,
    writes: false,
    input: searchInput,
    output: searchOutput,
    cli: searchCli,
    run: recallIn(mode),
    render: (answer: RecallAnswer, input) => searchAnswer(answer, input.format),
  });
}

/** `search`: recall by meaning only. */
export const search = searchBy("vector", {
  command: "search",
  tool: "search",
  summary: "search by meaning only (vectors)",
  description: "Like recall, by meaning only (vectors). Use when the wording may differ.",
});

/** `search-text`: recall by words only; works without the embedding model. */
export const searchText = searchBy("lexical", {
  command: "search-text",
  tool: "search_text",
  summary: "search by words only (BM25); works without the embedding model",
  description:
    "Like recall, by exact words only (BM25). Use for identifiers, error messages, file names.",
});

/** `search-code`: indexed code only, filtered by language and path. */
export const searchCode = operation({
  command: "search-code",
  tool: "search_code",
  summary: "search indexed code only (hybrid); --language and --path narrow it",
  description: "Search indexed code only: where something is done, by meaning and words. Answers " +
    "path:lines, the qualified name and the chunk. " + LOWERED_CODE,
  core: false,
  writes: false,
  input: {
    query,
    project: project.optional().describe("default all"),
    language,
    path,
    limit,
    format,
  },
  output: searchOutput,
  cli: {
    positionals: [{
      key: "query",
      name: "QUERY",
      rest: true,
      missing: 'give the code to look for, like "retry with backoff"',
    }],
    help: LOWERED_CODE_HELP,
  },
  run: (cairn, input) =>
    searchCodeIn(cairn, {
      query: input.query,
      ...(input.project ? { project: input.project } : {}),
      ...(input.language ? { language: input.language } : {}),
      ...(input.path ? { path: input.path } : {}),
      ...(input.limit ? { limit: input.limit } : {}),
    }),
  render: (answer: RecallAnswer, input) => searchAnswer(answer, input.format),
});

/** `history`: the sessions that touched a file (newest first) or a topic (most relevant first). */
export const history = operation({
  command: "history",
  tool: "session_history",
  summary: "which agent sessions touched a file (newest first) or a topic (most relevant first)",
  description:
    "Past agent sessions that touched a file (path, newest first) or a topic (query, most " +
    "relevant first), with what was asked and done. Use to learn why a file changed or what " +
    "was tried before.",
  core: false,
  writes: false,
  input: {
    target: z.string().min(1).max(4096).optional().describe("a file or a topic"),
    path: z.string().min(1).max(4096).optional().describe("src/a.ts, an absolute path, or a.ts"),
    query: z.string().min(1).max(4096).optional().describe("a topic instead of a path"),
    project: project.optional(),
    limit: z.number().int().min(1).max(1000).optional().describe(
      `default ${DEFAULT_RESULTS}; capped at ${MAX_RESULTS}`,
    ),
  },
  output: { count: z.number(), notes: z.array(z.string()) },
  cli: {
    positionals: [{
      key: "target",
      name: "FILE|TOPIC",
      rest: true,
      missing: "give the file or the topic whose history you want",
    }],
    cliOnly: ["target"],
    help: "  FILE   relative to its project's root (src/a.ts), absolute, or a bare name (a.ts)\n" +
      '  TOPIC  anything else, in words: "the flaky upload test"',
  },
  run: (cairn, { target, ...input }) =>
    sessionHistory({ graph: cairn.graph.database, text: cairn.text }, {
      ...Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)),
      ...(target ? historyTarget(target) : {}),
    }),
  render: (found: SessionHistory) => ({
    text: formatHistory(found),
    data: { count: found.entries.length, notes: found.notes },
    json: found,
  }),
});
