import { z } from "zod";
import { RelationRef } from "./memory.ts";

/** An entity was created (or, if it exists, its observations extended). */
export const EntityCreated = z.object({
  type: z.literal("entity.created"),
  v: z.literal(1),
  data: z.object({
    name: z.string().min(1),
    entity_type: z.string().min(1),
    observations: z.array(z.string()),
    project: z.string().nullable(),
  }),
});

/** The `entity.created` of an entity as the MCP memory server describes it. */
export function entityCreated(
  entity: { name: string; entityType: string; observations: readonly string[] },
  project: string | null,
): z.output<typeof EntityCreated> {
  const { name, entityType, observations } = entity;
  return {
    type: "entity.created",
    v: 1,
    data: { name, entity_type: entityType, observations: [...observations], project },
  };
}

/** An entity and every relation touching it were deleted. */
export const EntityDeleted = z.object({
  type: z.literal("entity.deleted"),
  v: z.literal(1),
  data: z.object({ name: z.string().min(1) }),
});

/** Observations were added to an entity. */
export const ObservationsAdded = z.object({
  type: z.literal("observations.added"),
  v: z.literal(1),
  data: z.object({ entity: z.string().min(1), observations: z.array(z.string()) }),
});

/** Observations were removed from an entity. */
export const ObservationsDeleted = z.object({
  type: z.literal("observations.deleted"),
  v: z.literal(1),
  data: z.object({ entity: z.string().min(1), observations: z.array(z.string()) }),
});

/** A typed relation between two entities was created. */
export const RelationCreated = z.object({
  type: z.literal("relation.created"),
  v: z.literal(1),
  data: RelationRef,
});

/** A typed relation between two entities was deleted. */
export const RelationDeleted = z.object({
  type: z.literal("relation.deleted"),
  v: z.literal(1),
  data: RelationRef,
});
