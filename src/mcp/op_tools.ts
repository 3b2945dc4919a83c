/**
 * The MCP tools of the operation table: a tool's schemas and description are
 * its operation's, and a call runs the operation and answers its rendering.
 * @module
 */
import type { z } from "zod";
import type { Cairn } from "../service/cairn.ts";
import type { AnyOperation, Caller } from "../ops/operation.ts";
import { OPERATIONS } from "../ops/table.ts";
import type { ToolResult } from "./handlers.ts";
import type { ToolDefinition } from "./tools.ts";

/** The tool definition of `op` (its CLI-only inputs left out). */
export function toolOf(op: AnyOperation): ToolDefinition {
  const cliOnly = new Set(op.cli?.cliOnly ?? []);
  const inputSchema: z.ZodRawShape = Object.fromEntries(
    Object.entries(op.input).filter(([key]) => !cliOnly.has(key)),
  );
  return {
    name: op.tool!,
    description: op.description,
    inputSchema,
    outputSchema: op.output,
    core: op.core,
  };
}

/** The operations that are MCP tools, by tool name. */
export const OPERATION_TOOLS: ReadonlyMap<string, AnyOperation> = new Map(
  OPERATIONS.filter((op) => op.tool !== undefined).map((op) => [op.tool!, op]),
);

/** Runs the operation behind tool `op` with arguments its schema checked, and renders the answer. */
export async function callOperation(
  op: AnyOperation,
  cairn: Cairn,
  args: Record<string, unknown>,
  caller: Caller,
): Promise<ToolResult> {
  const result = await op.run(cairn, args, { ...caller, agent: true });
  const { text, data, problem } = op.render(result, args);
  const answer = problem ? [text, `> ${problem}`].filter(Boolean).join("\n") : text;
  return { content: [{ type: "text", text: answer }], structuredContent: data };
}
