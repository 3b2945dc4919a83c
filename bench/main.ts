/**
 * `deno task bench [suite]`: runs benchmark suites and records their figures in bench/RESULTS.md.
 * Suites: quality (LoCoMo), speed (event log, embeddings, memory queries at 10k, MCP), tokens, all.
 * @module
 */
import { benchEmbed } from "./embed.ts";
import { benchLocomo } from "./locomo.ts";
import { benchLog } from "./log.ts";
import { benchMcp } from "./mcp.ts";
import { benchMemorySpeed } from "./memory_speed.ts";
import { benchTokens } from "./tokens.ts";

const suites: Record<string, Array<() => Promise<void>>> = {
  quality: [benchLocomo],
  speed: [benchLog, () => benchEmbed(), benchMemorySpeed, benchMcp],
  tokens: [benchTokens],
};

const [requested = "all"] = Deno.args;
const chosen = requested === "all" ? Object.values(suites).flat() : suites[requested];
if (!chosen) {
  console.error(
    `unknown suite "${requested}"; choose one of: ${Object.keys(suites).join(", ")}, all`,
  );
  Deno.exit(2);
}
for (const run of chosen) await run();
