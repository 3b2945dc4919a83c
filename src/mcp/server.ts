/**
 * Builds an MCP server that lists cairn's tools and answers each call through
 * a {@linkcode ToolCall}: the store's own handlers in the owner, a forward to
 * the owner in the relay.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { callerOfRequest, type ProgressChannel } from "./caller.ts";
import type { ToolCall } from "./handlers.ts";
import { listedTools } from "./tool_list.ts";
import { z } from "zod";
import { didYouMean } from "../../text/did_you_mean.ts";
import { type ToolProfile, toolsFor } from "./tools.ts";

/** The name and version MCP clients see. */
export const SERVER_INFO = { name: "cairn", version: "0.1.0" };

const INSTRUCTIONS =
  "cairn is this machine's long-term memory for coding agents. Call recall before working on " +
  "something you may have seen before; call remember for decisions and facts worth keeping.";

/** An MCP server listing the tools of `profile`, each answered by `call`. */
export function buildMcpServer(call: ToolCall, profile: ToolProfile = "all"): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  const tools = toolsFor(profile);
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: strictArguments(tool.inputSchema),
        outputSchema: tool.outputSchema,
      },
      async (args: Record<string, unknown>, extra: ProgressChannel) => {
        const { caller, delivered } = callerOfRequest(extra);
        const answer = await call(tool.name, args, caller);
        // The progress told goes out before the answer, which ends the client's wait for it.
        await delivered();
        return answer;
      },
    );
  }
  // The SDK still validates each call against the zod schemas registered above;
  // only the list it would send (complete JSON Schema, $schema and all) is replaced.
  const listed = { tools: listedTools(tools) };
  server.server.setRequestHandler(ListToolsRequestSchema, () => listed);
  return server;
}

/**
 * A tool's arguments as the SDK checks them: an argument the tool does not
 * take is refused with the one meant, as the CLI refuses an unknown option,
 * not dropped (an agent that misspells `project` would search everywhere).
 */
function strictArguments(shape: z.ZodRawShape): z.ZodObject {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? issue.keys.map((key) => `unknown argument "${key}"${didYouMean(key, known)}`).join("; ") +
          `; this tool takes ${known.join(", ")}`
        : undefined,
  });
}
