import { z } from "zod";
import { BlobRef } from "./code.ts";

/** A file an agent's turn touched, normalised to the project root. */
export const FileMention = z.object({
  path: z.string().min(1),
  absolute: z.string().optional(),
  tool: z.string().min(1),
});

/** One turn of an agent session: the prompt, the answer, and the files touched. */
export const TurnIngested = z.object({
  type: z.literal("turn.ingested"),
  v: z.literal(1),
  data: z.object({
    agent: z.enum(["claude", "codex"]),
    session: z.string().min(1),
    /** Line index of the turn's user message in its transcript. */
    line: z.number().int().nonnegative(),
    project: z.string().nullable(),
    started_at: z.string(),
    provisional: z.boolean(),
    text: BlobRef,
    mentions: z.array(FileMention),
    /**
     * Lines of the compact boundaries within the turn (after its prompt, before
     * the next): the session's turns before its last boundary have left the
     * agent's context. Absent when there are none (and in events written before
     * cairn read boundaries).
     */
    compactions: z.array(z.number().int().nonnegative()).optional(),
  }),
});

/** A provisional turn was withdrawn, with its mentions, to be replaced. */
export const TurnRetracted = z.object({
  type: z.literal("turn.retracted"),
  v: z.literal(1),
  data: z.object({ session: z.string().min(1), line: z.number().int().nonnegative() }),
});

/** How far a transcript file has been read, so re-ingest starts there. */
export const TranscriptAdvanced = z.object({
  type: z.literal("transcript.advanced"),
  v: z.literal(1),
  data: z.object({
    path: z.string().min(1),
    offset: z.number().int().nonnegative(),
    session: z.string().min(1),
  }),
});
