/**
 * The web view's JSON routes: a thin adapter, like the CLI and MCP, over the
 * operation table (recall, list, revise, forget, projects, the graph's reads)
 * and the few service reads no operation offers yet (a memory's history, the
 * graph around a node, the store's health). Every route takes a JSON object
 * and answers one.
 * @module
 */
import { z } from "zod";
import type { AnyOperation, Caller } from "../ops/operation.ts";
import { forget, list, revise } from "../ops/memory_ops.ts";
import { recall } from "../ops/search_ops.ts";
import { projects } from "../ops/code_ops.ts";
import { readGraph } from "../ops/knowledge_graph_ops.ts";
import type { RecallAnswer } from "../recall/answer.ts";
import type { GraphPage } from "../service/graph_ops.ts";
import type { Cairn } from "../service/cairn.ts";
import { NotFoundError } from "../errors.ts";
import { recallRows } from "./recall_rows.ts";
import { expandNode, findNodes, walkedNeighbourhood } from "./graph_view.ts";
import { health } from "./health.ts";
import { sessionTimeline } from "./sessions_view.ts";

/** What every route is given. */
export interface ApiContext {
  cairn: Cairn;
  caller: Caller;
}

/** One route: its JSON input to its JSON answer. */
export type ApiRoute = (context: ApiContext, input: Record<string, unknown>) => Promise<unknown>;

/** Runs operation `op` of the table on `input`, checked by its own schema, and answers its result. */
async function run<Result>(
  op: AnyOperation,
  { cairn, caller }: ApiContext,
  input: Record<string, unknown>,
): Promise<Result> {
  const parsed = z.object(op.input).strict().parse(input);
  return await op.run(cairn, parsed, caller) as Result;
}

const nodeInput = z.object({ node: z.string().min(3).max(2000) }).strict();
const walkInput = z.object({
  query: z.string().trim().min(1).max(4000),
  project: z.string().min(1).max(200).optional(),
  seeds: z.number().int().min(1).max(20).optional(),
}).strict();
const findInput = z.object({ query: z.string().trim().min(1).max(200) }).strict();
const historyInput = z.object({ id: z.string().min(1).max(200) }).strict();

/** The routes, by name: `POST /ui/api/<name>`. */
export const API_ROUTES: Readonly<Record<string, ApiRoute>> = {
  recall: async (context, input) => {
    const answer = await run<RecallAnswer>(recall, context, input);
    return { query: answer.query, rows: recallRows(answer), notes: answer.notes };
  },
  projects: (context) => run(projects, context, {}),
  memories: async (context, input) => await run(list, context, input),
  history: async ({ cairn }, input) => {
    const { id } = historyInput.parse(input);
    const changes = await cairn.memories.changes(id);
    if (changes.length === 0) throw new NotFoundError(`no memory with id ${id} (or it was purged)`);
    return { id, memory: await cairn.memories.get(id) ?? null, changes };
  },
  revise: (context, input) => run(revise, context, input),
  forget: async (context, input) => {
    await run(forget, context, input);
    return { id: input.id, purged: input.purge === true };
  },
  "graph-page": async (context, input) => await run<GraphPage>(readGraph, context, input),
  "graph-find": ({ cairn }, input) => findNodes(cairn, findInput.parse(input).query),
  "graph-expand": ({ cairn }, input) => expandNode(cairn, nodeInput.parse(input).node),
  "graph-walk": async (context, input) => {
    const { query, project, seeds = 5 } = walkInput.parse(input);
    const answer = await run<RecallAnswer>(recall, context, {
      query,
      limit: seeds,
      ...(project ? { project } : {}),
    });
    const found: Record<string, string[]> = {};
    for (const row of recallRows(answer)) {
      (found[row.source] ??= []).push(row.node.slice(row.node.indexOf(":") + 1));
    }
    const piece = await walkedNeighbourhood(context.cairn, found);
    return { ...piece, seeds: recallRows(answer).map((row) => row.node) };
  },
  health: ({ cairn }) => health(cairn),
  sessions: ({ cairn }, input) => sessionTimeline(cairn, input),
};
