import { z } from "zod";
import { entityCreated } from "../../events/kinds/graph.ts";
import type { NewEvent } from "../../events/schema.ts";
import { UserError } from "../errors.ts";
import { parseJsonl } from "./jsonl.ts";

const Entity = z.object({
  type: z.literal("entity"),
  name: z.string().min(1),
  entityType: z.string().min(1),
  observations: z.array(z.string()).default([]),
});

const Relation = z.object({
  type: z.literal("relation"),
  from: z.string().min(1),
  to: z.string().min(1),
  relationType: z.string().min(1),
});

const Line = z.discriminatedUnion("type", [Entity, Relation]);

/** The knowledge graph of the official MCP memory server: its entities, then its relations. */
export const ServerGraph = z.object({
  entities: z.array(Entity.omit({ type: true })),
  relations: z.array(Relation.omit({ type: true })),
});

/** The knowledge graph of the official MCP memory server. */
export type ServerGraph = z.infer<typeof ServerGraph>;

/**
 * Reads the knowledge graph file of the official MCP memory server
 * (`memory.json`: one `{"type":"entity"|"relation", ...}` object a line, or an
 * older single `{entities, relations}` object); `source` names it in errors.
 */
export function readServerGraph(text: string, source: string): ServerGraph {
  const trimmed = text.trim();
  if (trimmed.startsWith("{") && !trimmed.includes("\n") && trimmed.includes('"entities"')) {
    const whole = ServerGraph.safeParse(JSON.parse(trimmed));
    if (!whole.success) {
      throw new UserError(`${source}: not a memory server graph; nothing was imported`);
    }
    return whole.data;
  }
  const graph: ServerGraph = { entities: [], relations: [] };
  for (const line of parseJsonl(text, source, Line, "nothing was imported")) {
    if (line.type === "entity") {
      const { type: _, ...entity } = line;
      graph.entities.push(entity);
    } else {
      const { type: _, ...relation } = line;
      graph.relations.push(relation);
    }
  }
  return graph;
}

/** The cairn events of a memory server's graph, entities first so every relation has both ends. */
export function serverGraphEvents(graph: ServerGraph): NewEvent[] {
  return [
    ...graph.entities.map((entity) => entityCreated(entity, null)),
    ...graph.relations.map((relation): NewEvent => ({
      type: "relation.created",
      v: 1,
      data: { from: relation.from, to: relation.to, relation_type: relation.relationType },
    })),
  ];
}
