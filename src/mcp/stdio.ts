/**
 * MCP over standard input and output, as MCP clients spawn servers. Standard
 * output carries the protocol alone; anything else goes to standard error.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { BoundedStdioTransport } from "./bounded_stdio.ts";

/** Serves `server` on stdio; resolves when the client closes standard input. */
export async function serveStdio(server: McpServer): Promise<void> {
  const transport = new BoundedStdioTransport();
  await server.connect(transport);
  await transport.ended();
  await server.close();
}
