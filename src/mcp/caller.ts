/**
 * Who asks a tool call: the folder relative paths start from, and the folders
 * it may have read. Several agents in different folders share one owner, so
 * these travel with each call (in the request's `_meta`) instead of being
 * whatever the owner's own process started with.
 * @module
 */
import { z } from "zod";
import type { Caller } from "../ops/operation.ts";
import { allowedRoots } from "../service/allowed_roots.ts";

export type { Caller };

/** The key of the caller in a request's `_meta`. */
export const CALLER_META = "cairn/caller";

const CallerSchema = z.object({
  cwd: z.string().min(1).max(4096),
  roots: z.array(z.string().min(1).max(4096)).max(100),
});

/** This process as a caller: its folder and allowed roots. */
export function thisCaller(): Caller {
  return { cwd: Deno.cwd(), roots: allowedRoots() };
}

/** The caller a request's `_meta` names; this process when it names none (or no valid one). */
export function callerOf(meta: Record<string, unknown> | undefined): Caller {
  const parsed = CallerSchema.safeParse(meta?.[CALLER_META]);
  return parsed.success ? parsed.data : thisCaller();
}
