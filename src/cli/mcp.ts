import { resolve } from "node:path";
import { thisCaller } from "../mcp/caller.ts";
import type { ToolCall } from "../mcp/handlers.ts";
import { OwnerRelay } from "../mcp/relay.ts";
import { buildMcpServer } from "../mcp/server.ts";
import { serveStdio } from "../mcp/stdio.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, UsageError } from "./command.ts";

/** `cairn mcp`: MCP over stdio for an agent, relayed to the store's owner (started if needed). */
export const mcp: Command = {
  name: "mcp",
  summary: "serve MCP over stdio (what Claude Code, Cursor and Codex spawn)",
  usage: "cairn mcp [--tools core|all]",
  async run(context) {
    const { values } = parseCommandArgs(context.args, { tools: { type: "string" } });
    const profile = values.tools ?? "all";
    if (profile !== "core" && profile !== "all") {
      throw new UsageError(`--tools is core or all, not "${profile}"`);
    }
    const relay = new OwnerRelay({ storeDir: resolve(context.storeDir), log: context.err });
    relay.warm();
    try {
      // The agent's own `_meta` is not taken for the caller: its folder and roots are this
      // process's. Only the progress it asked for goes along.
      const call: ToolCall = (name, args, caller) =>
        relay.call(name, args, {
          ...thisCaller(),
          ...(caller?.progress ? { progress: caller.progress } : {}),
        });
      await serveStdio(buildMcpServer(call, profile));
    } finally {
      await relay.close();
    }
    return 0;
  },
};
