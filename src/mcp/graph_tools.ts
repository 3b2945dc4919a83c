/**
 * The knowledge-graph tools of the official MCP memory server, with its names
 * and argument shapes, so its users can move over without changing prompts.
 * @module
 */
import { z } from "zod";
import {
  EntitiesInput,
  ObservationDeletionsInput,
  ObservationsInput,
  RelationsInput,
} from "../service/graph_ops.ts";
import { asOfInput } from "../ops/time_input.ts";
import type { ToolDefinition } from "./tools.ts";

const names = z.array(z.string().min(1).max(200)).min(1).max(100);
const page = {
  offset: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).max(100).optional().describe("default 50"),
};
const graphPage = {
  entities: z.array(z.looseObject({})),
  relations: z.array(z.looseObject({})),
  /** Entities beyond this page. */
  more: z.number(),
};
const done = { count: z.number() };

/** The graph tools, listed with `--tools all`. */
export const GRAPH_TOOLS: readonly ToolDefinition[] = [
  {
    name: "create_entities",
    description:
      "Add people, services, concepts… to the knowledge graph (existing names are skipped).",
    inputSchema: { entities: EntitiesInput },
    outputSchema: done,
    core: false,
  },
  {
    name: "create_relations",
    description:
      "Link entities, in active voice (from `Ada` relationType `maintains` to `billing`).",
    inputSchema: { relations: RelationsInput },
    outputSchema: done,
    core: false,
  },
  {
    name: "add_observations",
    description: "Add facts to existing entities.",
    inputSchema: { observations: ObservationsInput },
    outputSchema: done,
    core: false,
  },
  {
    name: "delete_entities",
    description: "Remove entities and their relations.",
    inputSchema: { entityNames: names },
    outputSchema: done,
    core: false,
  },
  {
    name: "delete_observations",
    description: "Remove facts from entities.",
    inputSchema: { deletions: ObservationDeletionsInput },
    outputSchema: done,
    core: false,
  },
  {
    name: "delete_relations",
    description: "Remove relations between entities.",
    inputSchema: { relations: RelationsInput },
    outputSchema: done,
    core: false,
  },
  {
    name: "open_nodes",
    description: "Entities by name, with their observations and relations.",
    inputSchema: { names, ...asOfInput },
    outputSchema: graphPage,
    core: false,
  },
  {
    name: "search_nodes",
    description: "Entities whose name, type or observations contain the query; paginated.",
    inputSchema: { query: z.string().min(1).max(4096), ...page, ...asOfInput },
    outputSchema: graphPage,
    core: false,
  },
  {
    name: "read_graph",
    description: "The knowledge graph a page of entities at a time (never all at once).",
    inputSchema: { ...page, ...asOfInput },
    outputSchema: graphPage,
    core: false,
  },
];
