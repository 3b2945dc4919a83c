/**
 * A call of an MCP tool of the operation table: it runs the tool's operation
 * and answers its rendering.
 * @module
 */
import type { Cairn } from "../service/cairn.ts";
import type { AnyOperation, Caller } from "../ops/operation.ts";
import type { ToolResult } from "./tools.ts";

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
