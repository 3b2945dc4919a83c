import { join } from "node:path";
import { TextTokenizer } from "../src/embed/tokenizer.ts";
import { shippedModelDir } from "../src/embed/load.ts";
import { openCairn } from "../src/service/cairn.ts";
import { httpClient, killOwner, stdioClient, text } from "../test/mcp/mcp_client.ts";
import { median, runInfo, writeSection } from "./report.ts";

const MEMORIES = 500;
const QUERIES = 30;
const SPAWNS = 5;

const TOPICS = ["billing", "auth", "search", "deploys", "backups", "the CLI", "caching", "logging"];
const FACTS = [
  "uses Postgres 16 with nightly backups",
  "is deployed with blue-green releases",
  "keeps its settings in config.json",
  "retries HTTP calls three times with backoff",
  "was rewritten in TypeScript last spring",
  "must never log secrets or tokens",
];

function memory(i: number): string {
  return `Note ${i}: ${TOPICS[i % TOPICS.length]} ${FACTS[i % FACTS.length]} (owner team ${
    i % 7
  }).`;
}

function query(i: number): string {
  return `how does ${TOPICS[i % TOPICS.length]} handle ${
    ["backups", "releases", "retries"][i % 3]
  }?`;
}

function ms(value: number): string {
  return value.toFixed(1);
}

/**
 * The cost of the MCP server: the size of `tools/list` (all tools and the core
 * profile) in tokens, how soon a spawned `cairn mcp` answers it, and recall
 * latency through MCP (stdio relay to the owner, and HTTP to the owner) against
 * the same recall in-process, on a store of 500 memories.
 */
export async function benchMcp(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-bench-mcp-" });
  const store = join(dir, "store");
  try {
    const cairn = await openCairn(store);
    const request = (i: number) => ({
      query: query(i),
      sources: ["memory" as const],
      limit: 10,
      mode: "hybrid" as const,
    });
    const inProcess: number[] = [];
    try {
      await cairn.memories.importMany(
        Array.from({ length: MEMORIES }, (_, i) => ({ content: memory(i) })),
      );
      await cairn.store.runner.settled();
      // Every query once first, so that its vector comes from the process's memory of recent
      // queries, as it will in the owner (below): the three paths then differ by transport alone.
      for (let i = 0; i < QUERIES; i++) await cairn.recall.run(request(i));
      for (let i = 0; i < QUERIES; i++) {
        const started = performance.now();
        await cairn.recall.run(request(i));
        inProcess.push(performance.now() - started);
      }
    } finally {
      await cairn.close();
    }

    const tokenizer = await TextTokenizer.load(
      join(shippedModelDir(), "tokenizer.json"),
      Number.MAX_SAFE_INTEGER,
    );
    const tokens = (text: string) => tokenizer.encode(text).ids.length - 2;
    const listTimes: number[] = [];
    const sizes: Record<string, { chars: number; tokens: number; tools: number }> = {};
    for (let i = 0; i < SPAWNS; i++) {
      for (const profile of ["all", "core"]) {
        const started = performance.now();
        const client = await stdioClient(store, ["--tools", profile]);
        try {
          const list = await client.listTools();
          if (profile === "all") listTimes.push(performance.now() - started);
          const json = JSON.stringify(list.tools);
          sizes[profile] = { chars: json.length, tokens: tokens(json), tools: list.tools.length };
        } finally {
          await client.close();
        }
      }
    }

    const viaStdio: number[] = [];
    const viaHttp: number[] = [];
    const stdio = await stdioClient(store);
    const http = await (async () => {
      await stdio.callTool({ name: "recall", arguments: { query: query(0) } });
      return await httpClient(store);
    })();
    try {
      await untilModelLoaded(http);
      const args = (i: number) => ({ query: query(i), include: ["memories"], limit: 10 });
      for (let i = 0; i < QUERIES; i++) await http.callTool({ name: "recall", arguments: args(i) });
      for (let i = 0; i < QUERIES; i++) {
        let started = performance.now();
        await stdio.callTool({ name: "recall", arguments: args(i) });
        viaStdio.push(performance.now() - started);
        started = performance.now();
        await http.callTool({ name: "recall", arguments: args(i) });
        viaHttp.push(performance.now() - started);
      }
    } finally {
      await stdio.close();
      await http.close();
      await killOwner(store);
    }

    const body = `## MCP server

\`tools/list\` size (JSON of the tools array; tokens by the default model's WordPiece tokenizer,
characters / 4 in brackets):

| profile | tools | characters | tokens |
| --- | ---: | ---: | ---: |
${
      Object.entries(sizes).map(([profile, s]) =>
        `| ${profile} | ${s.tools} | ${s.chars} | ${s.tokens} (${Math.round(s.chars / 4)}) |`
      ).join("\n")
    }

Spawn of \`cairn mcp\` to \`tools/list\` answered (connect + initialize + list, median of ${SPAWNS}):
${ms(median(listTimes))} ms (max ${ms(Math.max(...listTimes))} ms).

Recall latency, ${MEMORIES} memories, ${QUERIES} queries, top 10, hybrid, warm model, each query
asked once before on each path (its vector then comes from the process's memory of recent queries,
so the rows differ by transport alone, and leave the query's embedding out):

| path | median ms | max ms |
| --- | ---: | ---: |
| in-process (\`RecallService.run\`) | ${ms(median(inProcess))} | ${ms(Math.max(...inProcess))} |
| MCP over HTTP to \`cairn serve\` | ${ms(median(viaHttp))} | ${ms(Math.max(...viaHttp))} |
| MCP over stdio (\`cairn mcp\` relay to the owner) | ${ms(median(viaStdio))} | ${
      ms(Math.max(...viaStdio))
    } |`;
    console.log(body);
    await writeSection("mcp", await runInfo("speed"), body);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await benchMcp();

/**
 * Waits until the owner's recall embeds queries: while its model loads it answers
 * by words only, which would make the first measured calls look fast.
 */
async function untilModelLoaded(client: Awaited<ReturnType<typeof httpClient>>): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    const answer = await client.callTool({ name: "recall", arguments: { query: "warm up" } });
    if (!/semantic search is not ready/.test(text(answer))) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the owner's embedding model did not load within a minute");
}
