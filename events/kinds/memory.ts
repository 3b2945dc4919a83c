import { z } from "zod";

/** What a memory records; free-form kinds are refused so filters stay meaningful. */
export const MemoryKind = z.enum([
  "decision",
  "fact",
  "pattern",
  "preference",
  "note",
  "conversation",
]);

/** A relation between two named entities, as stored in events. */
export const RelationRef = z.object({
  from: z.string().min(1),
  to: z.string().min(1),
  relation_type: z.string().min(1),
});

/** A memory was stored. `project` null means global. */
export const MemoryRemembered = z.object({
  type: z.literal("memory.remembered"),
  v: z.literal(1),
  data: z.object({
    id: z.string().min(1),
    project: z.string().nullable(),
    kind: MemoryKind,
    content: z.string(),
    tags: z.array(z.string()),
    source: z.string().optional(),
    external_id: z.string().optional(),
    entities: z.array(z.string()).optional(),
    relations: z.array(RelationRef).optional(),
    valid_from: z.string().optional(),
    valid_to: z.string().optional(),
    /** When the remembered thing happened, if not now (imports carry it). */
    occurred_at: z.string().optional(),
  }),
});

/** A memory was revised; absent fields keep their value. History stays in the log. */
export const MemoryRevised = z.object({
  type: z.literal("memory.revised"),
  v: z.literal(1),
  data: z.object({
    id: z.string().min(1),
    content: z.string().optional(),
    kind: MemoryKind.optional(),
    tags: z.array(z.string()).optional(),
    valid_from: z.string().optional(),
    valid_to: z.string().optional(),
  }),
});

/** A memory was forgotten (soft: it stays in the log until purged). */
export const MemoryForgotten = z.object({
  type: z.literal("memory.forgotten"),
  v: z.literal(1),
  data: z.object({ id: z.string().min(1), reason: z.string().optional() }),
});

/** A memory's content must leave the log; compaction removes every event about it. */
export const MemoryPurged = z.object({
  type: z.literal("memory.purged"),
  v: z.literal(1),
  data: z.object({ id: z.string().min(1) }),
});
