/**
 * The MCP tools cairn offers: names, short descriptions, and zod input and
 * output schemas. Every description is sent to the agent on every turn, so
 * each says in a sentence or two when to use the tool and nothing more.
 * @module
 */
import { z } from "zod";
import { MemoryKind } from "../../events/kinds/memory.ts";
import { MAX_MEMORY_CHARS } from "../service/memories.ts";
import { MAX_QUERY_CHARS } from "../recall/recall.ts";
import { LANGUAGE_NAMES } from "../ingest/code/source_file.ts";
import { GRAPH_TOOLS } from "./graph_tools.ts";
import { isoDate } from "../service/dates.ts";
import { timeInput } from "./time_input.ts";
import { relationFromText } from "../service/relation_text.ts";

/** Which tools a server lists: all of them, or the few most agents need. */
export type ToolProfile = "core" | "all";

/** One tool: its name, when to use it, and the zod schemas its calls and answers are checked against. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: z.ZodRawShape;
  outputSchema: z.ZodRawShape;
  /** Listed under `--tools core`. */
  core: boolean;
}

const id = z.string().min(1).max(200).describe("memory id, e.g. mem_…");
const project = z.string().min(1).max(200);
const language = z.enum(LANGUAGE_NAMES as [string, ...string[]]).optional();
const weight = z.number().min(0).max(10);

const searchInput = {
  query: z.string().trim().min(1, "query is empty").max(MAX_QUERY_CHARS),
  project: project.optional().describe("this project plus global memories; default all"),
  include: z.array(z.enum(["memories", "code", "sessions"])).min(1).optional()
    .describe("default all three"),
  limit: z.number().int().min(1).max(1000).optional().describe("default 10; capped at 50"),
  format: z.enum(["markdown", "json"]).optional().describe("json adds ids and scores"),
  ...timeInput,
};

const searchOutput = {
  count: z.number(),
  notes: z.array(z.string()),
  results: z.array(z.looseObject({})).optional(),
};

const memoryFields = {
  kind: MemoryKind.optional(),
  tags: z.array(z.string().min(1).max(100)).max(50).optional(),
  valid_from: isoDate.optional(),
  valid_to: isoDate.optional(),
};

/** Every tool, in the order `tools/list` gives them. */
export const TOOLS: readonly ToolDefinition[] = [
  {
    name: "recall",
    description:
      "Search what cairn knows: stored memories, indexed code and past agent sessions, ranked by " +
      "meaning and words. Use it first when you need project context: decisions, conventions, " +
      "where something lives, what was tried before.",
    inputSchema: {
      ...searchInput,
      language: language.describe("code only in this language"),
      mode: z.enum(["hybrid", "vector", "lexical"]).optional().describe("default hybrid"),
      session: z.string().min(1).max(200).optional()
        .describe("your session id: leaves out your turns still in context"),
      weights: z.object({
        vector: weight,
        lexical: weight,
        context: weight,
        graph: weight,
        mention: weight,
      }).partial().strict().optional().describe("fusion weights, 0-10"),
    },
    outputSchema: searchOutput,
    core: true,
  },
  {
    name: "search",
    description: "Like recall, by meaning only (vectors). Use when the wording may differ.",
    inputSchema: searchInput,
    outputSchema: searchOutput,
    core: false,
  },
  {
    name: "search_text",
    description:
      "Like recall, by exact words only (BM25). Use for identifiers, error messages, file names.",
    inputSchema: searchInput,
    outputSchema: searchOutput,
    core: false,
  },
  {
    name: "search_code",
    description:
      "Search indexed code only: where something is done, by meaning and words. Answers " +
      "path:lines, the qualified name and the chunk.",
    inputSchema: {
      query: searchInput.query,
      project: project.optional().describe("default all"),
      language,
      path: z.string().min(1).max(1000).optional().describe("folder or file, e.g. src/auth"),
      limit: searchInput.limit,
      format: searchInput.format,
    },
    outputSchema: searchOutput,
    core: false,
  },
  {
    name: "session_history",
    description:
      "Past agent sessions that touched a file (path) or a topic (query), newest first, with " +
      "what was asked and done. Use to learn why a file changed or what was tried before.",
    inputSchema: {
      path: z.string().min(1).max(4096).optional().describe("src/a.ts, an absolute path, or a.ts"),
      query: z.string().min(1).max(4096).optional().describe("a topic instead of a path"),
      project: project.optional(),
      limit: z.number().int().min(1).max(1000).optional().describe("default 10; capped at 50"),
    },
    outputSchema: { count: z.number(), notes: z.array(z.string()) },
    core: false,
  },
  {
    name: "remember",
    description:
      "Store a memory worth having in later sessions: a decision, fact, pattern or preference. " +
      "One idea per memory; text already stored is not stored twice.",
    inputSchema: {
      content: z.string().trim().min(1, "content is empty").max(MAX_MEMORY_CHARS),
      ...memoryFields,
      project: project.optional().describe("omit for a global memory"),
      entities: z.array(z.string().min(1).max(200)).max(50).optional()
        .describe("names it is about"),
      relations: z.array(
        z.string().max(600).refine(
          (text) => relationFromText(text) !== undefined,
          "write a relation as FROM|RELATION|TO, like Ada|maintains|billing",
        ),
      ).max(50).optional().describe("FROM|RELATION|TO"),
      source: z.string().min(1).max(2000).optional().describe("where it comes from"),
      force: z.boolean().optional().describe("store even if already known"),
    },
    outputSchema: { id: z.string(), duplicate: z.boolean() },
    core: true,
  },
  {
    name: "revise",
    description:
      "Correct or update a memory by id; the earlier version stays in history. Ids come from " +
      "list_memories or recall with format json.",
    inputSchema: {
      id,
      content: z.string().trim().min(1).max(MAX_MEMORY_CHARS).optional(),
      ...memoryFields,
    },
    outputSchema: { id: z.string() },
    core: false,
  },
  {
    name: "forget",
    description: "Forget a memory that is wrong or obsolete, by id.",
    inputSchema: { id, reason: z.string().max(1000).optional() },
    outputSchema: { id: z.string() },
    core: true,
  },
  {
    name: "list_memories",
    description: "List stored memories with their ids, newest first.",
    inputSchema: {
      project: project.optional(),
      kind: MemoryKind.optional(),
      tag: z.string().min(1).max(100).optional(),
      limit: z.number().int().min(1).max(50).optional().describe("default 20"),
      offset: z.number().int().min(0).optional(),
      ...timeInput,
    },
    outputSchema: { count: z.number(), ids: z.array(z.string()) },
    core: false,
  },
  {
    name: "index_project",
    description:
      "Index (or re-index, incrementally) a code folder so recall finds its code. Use once per " +
      "repository, and again after large changes.",
    inputSchema: {
      path: z.string().min(1).max(4096).describe("absolute folder path"),
      project: project.optional().describe("default: the repository's name"),
      watch: z.boolean().optional().describe("keep re-indexing as files change"),
    },
    outputSchema: {
      project: z.string(),
      indexed: z.number(),
      chunks: z.number(),
      watching: z.boolean(),
    },
    core: true,
  },
  {
    name: "get_index_status",
    description:
      "A project's index: files, chunks, when last indexed, what the last run skipped and why.",
    inputSchema: { project: project.optional().describe("default every project") },
    outputSchema: { projects: z.array(z.looseObject({})) },
    core: true,
  },
  {
    name: "list_projects",
    description: "The indexed projects (up to 100): files, chunks, when last indexed.",
    inputSchema: {},
    outputSchema: { projects: z.array(z.looseObject({})), notes: z.array(z.string()) },
    core: false,
  },
  {
    name: "delete_project",
    description: "Take a project's code out of the index; its memories and sessions stay.",
    inputSchema: { project },
    outputSchema: { project: z.string() },
    core: false,
  },
];

/** The tools a profile lists. */
export function toolsFor(profile: ToolProfile): ToolDefinition[] {
  return [...TOOLS, ...GRAPH_TOOLS].filter((tool) => profile === "all" || tool.core);
}
