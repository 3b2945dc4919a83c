/**
 * The `serve owner` workload: an owner killed while MCP and CLI `remember` calls reach it.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { join } from "node:path";
import { newStore } from "../cli.ts";
import { afterKill } from "./after_kill.ts";
import { brief, startCairn } from "./cairn.ts";
import type { Context } from "./context.ts";
import { loopDelay } from "./kill.ts";
import { checkMemories, memoryText, remembered } from "./memories.ts";
import { lastLines, lines, noteWarnings } from "./output.ts";
import { Group, MAIN, sleep, within } from "./processes.ts";
import { bump, logRound, newTally, type Tally } from "./tally.ts";

/** Sequential `remember` tool calls over MCP (HTTP) to the owner, until `stop` or an error. */
export async function mcpRemember(
  port: number,
  token: string,
  texts: string[],
  stop: { now: boolean },
  acked: Map<string, string>,
  errors: string[],
): Promise<void> {
  const client = new Client({ name: "cairn-crash-bench", version: "0.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    for (const content of texts) {
      if (stop.now) break;
      const result = await client.callTool(
        { name: "remember", arguments: { content } },
        undefined,
        { timeout: 60_000 },
      );
      const id = (result.structuredContent as { id?: unknown } | undefined)?.id;
      if (result.isError || typeof id !== "string") {
        errors.push(`remember answered: ${brief(JSON.stringify(result.content))}`);
        break;
      }
      acked.set(id, content);
    }
  } catch (error) {
    errors.push((error as Error).message);
  } finally {
    await within(client.close(), 5_000).catch(() => {});
  }
}

/** The `serve owner` workload: its tally. */
export async function benchServe(ctx: Context, quota: number): Promise<Tally> {
  const t = newTally(
    "serve owner",
    "`serve --idle-timeout 60` SIGKILLed while `remember` calls reach it over MCP (HTTP) and a " +
      "CLI loop relays `remember --json` to it; the CLI loop (by then writing itself) killed " +
      "2.5 s later; acked = every id answered (the CLI call in flight when the owner dies exits 1 " +
      "saying the owner stopped: counted as a command error)",
  );
  const store = await newStore(join(ctx.tmp, "serve", "store"));
  const expected = new Map<string, string>();
  let n = 100_000;
  let mcpCut = 0;
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const owner = startCairn(store, ["serve", "--idle-timeout", "60"]);
    let record: { pid: number; port: number } | undefined;
    for (let i = 0; i < 1200 && record?.pid !== owner.pgid && !owner.exited; i++) {
      await sleep(50);
      try {
        record = JSON.parse(await Deno.readTextFile(join(store, "serve.json")));
      } catch { /* not yet */ }
    }
    if (record?.pid !== owner.pgid) {
      await owner.kill();
      t.failures.push(`serve round ${round}: the owner did not start: ${brief(owner.err)}`);
      continue;
    }
    const token = (await Deno.readTextFile(join(store, "serve.token"))).trim();
    const texts = Array.from({ length: 40 }, () => memoryText(ctx, ++n));
    const loop = new Group("bash", [
      "-c",
      'for text in "$@"; do "$DENO" run --allow-all --quiet "$MAIN" --store "$S" remember ' +
      '"$text" --json || echo "FAIL k $?"; done',
      "loop",
      ...texts,
    ], { DENO: Deno.execPath(), MAIN, S: store });
    const stop = { now: false };
    const viaMcp = new Map<string, string>();
    const mcpErrors: string[] = [];
    const mcpTexts = Array.from({ length: 200 }, () => memoryText(ctx, ++n));
    const mcp = mcpRemember(record.port, token, mcpTexts, stop, viaMcp, mcpErrors);
    const delay = loopDelay(ctx);
    await sleep(delay);
    const ownerRunning = await owner.kill();
    if (ownerRunning) t.kills++;
    else t.finishedFirst++;
    await sleep(2_500);
    stop.now = true;
    if (await within(mcp, 30_000) === "timeout") mcpErrors.push("the MCP loop did not stop");
    await loop.kill();
    if (noteWarnings(t, `serve round ${round}, the CLI loop after the owner's death`, loop.err)) {
      t.warned++;
    }
    const cliIds = remembered(loop.out);
    const failed = lines(loop.out).filter((line) => line.startsWith("FAIL"));
    t.commandErrors += failed.length;
    for (const line of failed) bump(t.commandErrorSamples, `${line}: ${lastLines(loop.err)}`);
    for (const { id, content } of cliIds) expected.set(id, content);
    for (const [id, content] of viaMcp) expected.set(id, content);
    if (mcpErrors.length) mcpCut++;
    t.acked += cliIds.length + viaMcp.size;
    logRound(
      t,
      round,
      quota,
      `owner killed after ${delay} ms; ${viaMcp.size} MCP and ${cliIds.length} CLI ids ` +
        "acknowledged",
    );
    const opened = await afterKill(
      t,
      ctx,
      store,
      `serve round ${round}`,
      () => checkMemories(store, expected),
    );
    if (!opened) break;
  }
  t.notes.push(
    `serve owner: MCP calls cut by the owner's death in ${mcpCut} rounds (expected: the call ` +
      "in flight fails, nothing it acknowledged may be lost)",
  );
  return t;
}
