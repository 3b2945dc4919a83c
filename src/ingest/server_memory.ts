import { z } from "zod";
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

const WholeGraph = z.object({
  entities: z.array(Entity.omit({ type: true })),
  relations: z.array(Relation.omit({ type: true })),
});

/**
 * Reads the knowledge graph file of the official MCP memory server
 * (`memory.json`: one `{"type":"entity"|"relation", ...}` object a line, or an
 * older single `{entities, relations}` object) and turns it into cairn events,
 * entities first so every relation has both ends.
 */
export function serverMemoryEvents(text: string, source: string): NewEvent[] {
  let lines: Array<z.infer<typeof Line>>;
  const trimmed = text.trim();
  if (trimmed.startsWith("{") && !trimmed.includes("\n") && trimmed.includes('"entities"')) {
    const whole = WholeGraph.safeParse(JSON.parse(trimmed));
    if (!whole.success) {
      throw new UserError(`${source}: not a memory server graph; nothing was imported`);
    }
    lines = [
      ...whole.data.entities.map((e) => ({ type: "entity" as const, ...e })),
      ...whole.data.relations.map((r) => ({ type: "relation" as const, ...r })),
    ];
  } else {
    lines = parseJsonl(text, source, Line, "nothing was imported");
  }
  const entities: NewEvent[] = [];
  const relations: NewEvent[] = [];
  for (const line of lines) {
    if (line.type === "entity") {
      entities.push({
        type: "entity.created",
        v: 1,
        data: {
          name: line.name,
          entity_type: line.entityType,
          observations: line.observations,
          project: null,
        },
      });
    } else {
      relations.push({
        type: "relation.created",
        v: 1,
        data: { from: line.from, to: line.to, relation_type: line.relationType },
      });
    }
  }
  return [...entities, ...relations];
}
