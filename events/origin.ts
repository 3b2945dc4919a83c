import { z } from "zod";

/**
 * Where an event came from when another member of a team wrote it: the
 * member, the event's number in that member's log, and its place in the
 * team's JetStream stream. Events written here carry none. `derived` marks an
 * own change this member applied again after an earlier one from the stream
 * (so the later in stream order stays the winner), which is never published.
 */
export const Origin = z.object({
  member: z.string().min(1),
  seq: z.number().int().positive(),
  stream: z.string().min(1),
  subject: z.string().min(1),
  stream_seq: z.number().int().positive(),
  /** When the member appended it, ISO 8601. */
  ts: z.string().optional(),
  derived: z.literal("reapplied").optional(),
}).strict();

/** Where an event came from, when it came from another member. */
export type Origin = z.infer<typeof Origin>;
