/**
 * The MCP tools over an open store: each runs its operation of the table
 * (`op_tools.ts`) and answers compact markdown and a small structured
 * summary; failures are answered in words, a fault of cairn's also logged.
 * @module
 */
import { callOperation } from "./op_tools.ts";
import { OPERATION_TOOLS, type ToolResult } from "./tools.ts";
import { type Caller, thisCaller } from "./caller.ts";
import type { Cairn } from "../service/cairn.ts";
import { UserError } from "../errors.ts";
import { classify } from "../ops/failure.ts";

/**
 * Calls one tool by name with arguments its input schema has already checked,
 * for `caller` (this process's folder and roots when not given).
 */
export type ToolCall = (
  name: string,
  args: Record<string, unknown>,
  caller?: Caller,
) => Promise<ToolResult>;

/** Raised for a tool name no handler knows. */
export class UnknownToolError extends UserError {
  override name = "UnknownToolError";
}

/**
 * The tools over an open store. Errors come back as messages that say what to
 * fix; unexpected ones are logged with their stack to `log` but answered
 * with the message alone.
 */
export function localTools(cairn: Cairn, log: (line: string) => void = console.error): ToolCall {
  return async (name, args, caller = thisCaller()) => {
    const op = OPERATION_TOOLS.get(name);
    if (!op) throw new UnknownToolError(`unknown tool ${name}`);
    try {
      return await callOperation(op, cairn, args, caller);
    } catch (error) {
      const failure = classify(error);
      if (failure.kind !== "internal") throw new Error(failure.message, { cause: error });
      log(`cairn: tool ${name} failed: ${(error as Error).stack ?? error}`);
      throw new Error(`${name} failed: ${failure.message}`);
    }
  };
}
