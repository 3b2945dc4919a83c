/**
 * What each MCP tool does over an open store: calls the service, then answers
 * with compact markdown (or JSON when asked) and a small structured summary.
 * @module
 */
import { relationFromText } from "../service/relation_text.ts";
import { resolve } from "node:path";
import { z } from "zod";
import { BlobError } from "../../events/blobs.ts";
import { ModelMismatchError } from "../../projections/vectors/vectors_projection.ts";
import { searchCode, type SearchCodeInput } from "../service/code_search.ts";
import { formatProjects, listProjects, MAX_PROJECTS } from "../service/project_list.ts";
import { formatHistory, sessionHistory } from "../service/session_history.ts";
import { EmbedderError } from "../embed/embedder.ts";
import { checkAllowedPath } from "./allowed_roots.ts";
import { type Caller, thisCaller } from "./caller.ts";
import { formatJson, formatMarkdown, memoryLine } from "../recall/format.ts";
import { statusLines } from "../service/index_status.ts";
import type { RecallMode, Source } from "../recall/types.ts";
import type { SignalWeights } from "../recall/fuse.ts";
import type { Cairn } from "../service/cairn.ts";
import type { RecallAnswer } from "../service/recall_service.ts";
import type { GraphPage } from "../service/graph_ops.ts";
import { pageLines } from "../service/graph_format.ts";
import { describeIssues, UserError } from "../service/errors.ts";

/** A tool's answer as MCP sends it. */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * Calls one tool by name with arguments its input schema has already checked,
 * for `caller` (this process's folder and roots when not given).
 */
export type ToolCall = (
  name: string,
  args: Record<string, unknown>,
  caller?: Caller,
) => Promise<ToolResult>;

/** Raised for a tool name no handler knows. */
export class UnknownToolError extends UserError {
  override name = "UnknownToolError";
}

const SOURCES: Record<string, Source> = { memories: "memory", code: "code", sessions: "turn" };

type Args = Record<string, unknown>;
type Handler = (cairn: Cairn, args: Args, caller: Caller) => Promise<ToolResult>;

function answer(text: string, structuredContent: Record<string, unknown>): ToolResult {
  return { content: [{ type: "text", text }], structuredContent };
}

const optional = (args: Args, ...keys: string[]) =>
  Object.fromEntries(keys.filter((key) => args[key] !== undefined).map((key) => [key, args[key]]));

/** A search tool: recall in one mode (or the one asked), over the sources asked. */
function searchWith(mode: RecallMode | undefined): Handler {
  return async (cairn, args) => {
    const include = (args.include as string[] | undefined) ?? ["memories", "code", "sessions"];
    const result = await cairn.recall.run({
      query: args.query as string,
      project: (args.project as string | undefined) ?? null,
      sources: include.map((name) => SOURCES[name]!),
      ...(args.language ? { language: args.language as string } : {}),
      ...(args.session ? { session: args.session as string } : {}),
      limit: (args.limit as number | undefined) ?? 10,
      mode: mode ?? (args.mode as RecallMode | undefined) ?? "hybrid",
      ...(args.weights ? { weights: args.weights as Partial<SignalWeights> } : {}),
    }, optional(args, "as_of", "valid_at"));
    return searchAnswer(result, args.format);
  };
}

/** A search's answer: compact markdown, or JSON with every result when `format` is json. */
function searchAnswer(result: RecallAnswer, format: unknown): ToolResult {
  const summary = { count: result.items.length, notes: result.notes };
  if (format === "json") {
    const text = formatJson(result);
    return answer(text, { ...summary, results: JSON.parse(text).results });
  }
  return answer(formatMarkdown(result), summary);
}

const HANDLERS: Record<string, Handler> = {
  recall: searchWith(undefined),
  search: searchWith("vector"),
  search_text: searchWith("lexical"),
  search_code: async (cairn, args) =>
    searchAnswer(await searchCode(cairn, args as z.input<typeof SearchCodeInput>), args.format),
  async session_history(cairn, args) {
    const found = await sessionHistory(
      { graph: cairn.graph.database, text: cairn.text, recall: cairn.recall },
      optional(args, "path", "query", "project", "limit"),
    );
    return answer(formatHistory(found), { count: found.entries.length, notes: found.notes });
  },
  async remember(cairn, args) {
    const { memory, duplicate } = await cairn.memories.remember({
      content: args.content as string,
      project: (args.project as string | undefined) ?? null,
      ...optional(args, "kind", "tags", "entities", "source", "valid_from", "valid_to", "force"),
      ...(args.relations
        ? { relations: (args.relations as string[]).map((text) => relationFromText(text)!) }
        : {}),
    });
    const head = duplicate ? "already known (force: true stores it again):" : "remembered:";
    return answer(`${head}\n${memoryLine(memory)}`, { id: memory.id, duplicate });
  },
  async revise(cairn, args) {
    const memory = await cairn.memories.revise({
      id: args.id as string,
      ...optional(args, "content", "kind", "tags", "valid_from", "valid_to"),
    });
    return answer(`revised:\n${memoryLine(memory)}`, { id: memory.id });
  },
  async forget(cairn, args) {
    const id = args.id as string;
    await cairn.memories.forget(id, optional(args, "reason"));
    return answer(`forgotten: \`${id}\``, { id });
  },
  async list_memories(cairn, args) {
    const memories = await cairn.memories.list(
      optional(args, "project", "kind", "tag", "limit", "offset", "as_of", "valid_at"),
    );
    const text = memories.length ? memories.map((m) => memoryLine(m)).join("\n") : "No memories.";
    return answer(text, { count: memories.length, ids: memories.map((m) => m.id) });
  },
  async index_project(cairn, args, caller) {
    const path = checkAllowedPath(
      resolve(caller.cwd, args.path as string),
      caller.roots,
      "in the environment of the MCP client's `cairn mcp`",
    );
    const report = await cairn.code.index({ path, ...optional(args, "project") });
    const skipped = report.skipped ? `, ${report.skipped} skipped` : "";
    let watching = "";
    if (args.watch === true) {
      const started = cairn.watches.start(resolve(path), report.project, {
        onReport: () => {},
        onError: (error) => console.error(`cairn: watching ${report.project}: ${error.message}`),
      });
      watching = started ? "; watching for changes" : "; already watching for changes";
    }
    return answer(
      `indexed ${report.project} (${report.root}): ${report.indexed} files written, ` +
        `${report.unchanged} unchanged, ${report.removed} removed${skipped}; ` +
        `${report.chunks} chunks in ${report.seconds.toFixed(1)} s${watching}`,
      {
        project: report.project,
        indexed: report.indexed,
        chunks: report.chunks,
        watching: args.watch === true,
      },
    );
  },
  async delete_project(cairn, args) {
    const project = args.project as string;
    await cairn.code.deleteProject(project);
    return answer(`deleted the code index of ${project}`, { project });
  },
  async get_index_status(cairn, args) {
    const all = await cairn.code.status(args.project as string | undefined);
    const projects = all.slice(0, MAX_PROJECTS);
    const lines = projects.flatMap((project) => statusLines(project));
    if (all.length > MAX_PROJECTS) {
      lines.push(`> capped at ${MAX_PROJECTS} of ${all.length} projects`);
    }
    return answer(lines.join("\n") || "No project is indexed.", { projects });
  },
  async list_projects(cairn) {
    const list = await listProjects(cairn.code);
    return answer(formatProjects(list), { ...list });
  },
};

function graphAnswer(page: GraphPage, args: Args): ToolResult {
  const offset = (args.offset as number | undefined) ?? 0;
  const lines = pageLines(page, offset, (next) => `offset ${next}`);
  return answer(lines.join("\n"), { ...page });
}

const GRAPH_HANDLERS: Record<string, Handler> = {
  async create_entities(cairn, args) {
    const created = await cairn.entities.createEntities(args.entities as never);
    return answer(`created ${created.length} entities`, { count: created.length });
  },
  async create_relations(cairn, args) {
    const created = await cairn.entities.createRelations(args.relations as never);
    return answer(`created ${created.length} relations`, { count: created.length });
  },
  async add_observations(cairn, args) {
    const added = await cairn.entities.addObservations(args.observations as never);
    const count = added.reduce((sum, a) => sum + a.addedObservations.length, 0);
    return answer(`added ${count} observations`, { count });
  },
  async delete_entities(cairn, args) {
    const names = args.entityNames as string[];
    await cairn.entities.deleteEntities(names);
    return answer(`deleted entities ${names.join(", ")}`, { count: names.length });
  },
  async delete_observations(cairn, args) {
    const deletions = args.deletions as Array<{ entityName: string; observations: string[] }>;
    await cairn.entities.deleteObservations(
      deletions.map((d) => ({ entityName: d.entityName, contents: d.observations })),
    );
    return answer("deleted the observations", { count: deletions.length });
  },
  async delete_relations(cairn, args) {
    const relations = args.relations as Array<unknown>;
    await cairn.entities.deleteRelations(relations as never);
    return answer(`deleted ${relations.length} relations`, { count: relations.length });
  },
  open_nodes: async (cairn, args) =>
    graphAnswer(
      await cairn.entities.openNodes(args.names as string[], optional(args, "as_of")),
      args,
    ),
  search_nodes: async (cairn, args) =>
    graphAnswer(
      await cairn.entities.searchNodes(
        args.query as string,
        optional(args, "offset", "limit", "as_of"),
      ),
      args,
    ),
  read_graph: async (cairn, args) =>
    graphAnswer(await cairn.entities.readGraph(optional(args, "offset", "limit", "as_of")), args),
};

const USER_ERRORS = [UserError, BlobError, ModelMismatchError, EmbedderError];

/**
 * The tools over an open store. Errors come back as messages that say what to
 * fix; unexpected ones are logged with their stack to `log` but answered
 * with the message alone.
 */
export function localTools(cairn: Cairn, log: (line: string) => void = console.error): ToolCall {
  return async (name, args, caller = thisCaller()) => {
    const handler = HANDLERS[name] ?? GRAPH_HANDLERS[name];
    if (!handler) throw new UnknownToolError(`unknown tool ${name}`);
    try {
      return await handler(cairn, args, caller);
    } catch (error) {
      if (error instanceof z.ZodError) throw new Error(describeIssues(error));
      if (USER_ERRORS.some((kind) => error instanceof kind)) throw error;
      log(`cairn: tool ${name} failed: ${(error as Error).stack ?? error}`);
      throw new Error(`${name} failed: ${(error as Error).message ?? error}`);
    }
  };
}
