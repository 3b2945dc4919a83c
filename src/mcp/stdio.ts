/**
 * MCP over standard input and output, as MCP clients spawn servers. Standard
 * output carries the protocol alone; anything else goes to standard error.
 * @module
 */
import process from "node:process";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

/** Serves `server` on stdio; resolves when the client closes standard input. */
export async function serveStdio(server: McpServer): Promise<void> {
  const ended = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  await server.connect(new StdioServerTransport());
  await ended;
  await server.close();
}
