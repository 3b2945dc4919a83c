/**
 * What each MCP tool does over an open store: the operation table's tools run
 * their operation (`op_tools.ts`); the knowledge-graph tools of the official
 * memory server call the graph service here. Each answers compact markdown
 * and a small structured summary.
 * @module
 */
import { callOperation, OPERATION_TOOLS } from "./op_tools.ts";
import { type Caller, thisCaller } from "./caller.ts";
import type { Cairn } from "../service/cairn.ts";
import type { GraphPage } from "../service/graph_ops.ts";
import { pageLines } from "../service/graph_format.ts";
import { UserError } from "../service/errors.ts";
import { classify } from "../ops/failure.ts";

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

type Args = Record<string, unknown>;
type Handler = (cairn: Cairn, args: Args, caller: Caller) => Promise<ToolResult>;

function answer(text: string, structuredContent: Record<string, unknown>): ToolResult {
  return { content: [{ type: "text", text }], structuredContent };
}

const optional = (args: Args, ...keys: string[]) =>
  Object.fromEntries(keys.filter((key) => args[key] !== undefined).map((key) => [key, args[key]]));

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

/**
 * The tools over an open store. Errors come back as messages that say what to
 * fix; unexpected ones are logged with their stack to `log` but answered
 * with the message alone.
 */
export function localTools(cairn: Cairn, log: (line: string) => void = console.error): ToolCall {
  return async (name, args, caller = thisCaller()) => {
    const op = OPERATION_TOOLS.get(name);
    const handler = GRAPH_HANDLERS[name];
    if (!op && !handler) throw new UnknownToolError(`unknown tool ${name}`);
    try {
      return op
        ? await callOperation(op, cairn, args, caller)
        : await handler!(cairn, args, caller);
    } catch (error) {
      const failure = classify(error);
      if (failure.kind !== "internal") throw new Error(failure.message, { cause: error });
      log(`cairn: tool ${name} failed: ${(error as Error).stack ?? error}`);
      throw new Error(`${name} failed: ${failure.message}`);
    }
  };
}
