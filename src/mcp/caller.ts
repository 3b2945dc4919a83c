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

/** What a tool call's handler gets from the MCP server that helps it tell how far it is. */
export interface ProgressChannel {
  _meta?: Record<string, unknown>;
  sendNotification: (notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; total?: number; message: string };
  }) => Promise<void>;
}

/** A tool call's caller, and a wait for the progress it told to have gone out. */
export interface RequestCaller {
  caller: Caller;
  /** Resolves once every progress notification sent so far is written (they go before the answer). */
  delivered(): Promise<void>;
}

/**
 * The caller of a tool call: whose folder and roots its `_meta` names, and,
 * when the client asked for progress (a `progressToken`), where a long
 * operation tells how far it is. Progress only ever grows, as MCP requires,
 * and its notifications go out in order.
 */
export function callerOfRequest(extra: ProgressChannel): RequestCaller {
  const caller = callerOf(extra._meta);
  const token = extra._meta?.progressToken;
  let sent = Promise.resolve();
  const delivered = () => sent;
  if (typeof token !== "string" && typeof token !== "number") return { caller, delivered };
  let last = 0;
  const progress = (message: string, done?: number) => {
    last = done === undefined ? last + 1 : Math.max(done * 100, last + 0.01);
    const params = { progressToken: token, progress: last, message };
    const notification = {
      method: "notifications/progress" as const,
      params: done === undefined ? params : { ...params, total: 100 },
    };
    sent = sent.then(() => extra.sendNotification(notification)).catch(() => {});
  };
  return { caller: { ...caller, progress }, delivered };
}
