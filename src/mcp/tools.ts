/**
 * The MCP tools cairn offers, one for each operation of the table that is a
 * tool: names, short descriptions, zod input and output schemas, and the
 * shape of an answer. Every description is sent to the agent on every turn, so
 * each says in a sentence or two when to use the tool and nothing more.
 * @module
 */
import type { z } from "zod";
import type { AnyOperation } from "../ops/operation.ts";
import { OPERATIONS } from "../ops/table.ts";

/** Which tools a server lists: all of them, or the few most agents need. */
export type ToolProfile = "core" | "all";

/** One tool: its name, when to use it, and the zod schemas its calls and answers are checked against. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: z.ZodRawShape;
  outputSchema: z.ZodRawShape;
  /** Listed under `--tools core`. */
  core: boolean;
}

/** A tool's answer as MCP sends it. */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

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

/** The tools a profile lists: the operation table's, in its order. */
export function toolsFor(profile: ToolProfile): ToolDefinition[] {
  return [...OPERATION_TOOLS.values()].map(toolOf).filter((tool) => profile === "all" || tool.core);
}
