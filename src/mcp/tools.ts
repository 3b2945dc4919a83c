/**
 * The MCP tools cairn offers: names, short descriptions, and zod input and
 * output schemas. Every description is sent to the agent on every turn, so
 * each says in a sentence or two when to use the tool and nothing more.
 * @module
 */
import type { z } from "zod";
import { OPERATION_TOOLS, toolOf } from "./op_tools.ts";

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

/** The tools a profile lists: the operation table's, in its order. */
export function toolsFor(profile: ToolProfile): ToolDefinition[] {
  return [...OPERATION_TOOLS.values()].map(toolOf).filter((tool) => profile === "all" || tool.core);
}
