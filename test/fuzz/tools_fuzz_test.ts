import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { localTools } from "../../src/mcp/handlers.ts";
import { buildMcpServer } from "../../src/mcp/server.ts";
import { toolsFor } from "../../src/mcp/tools.ts";
import { tempDir } from "../helpers.ts";
import { fuzzSeed, Random, randomJson, randomString } from "./random.ts";
import { assertStoreWhole, openFuzzed } from "./verified.ts";

const CALLS_PER_TOOL = 60;

/** A value for argument `key`: often one the tool could take, as often anything at all. */
function argument(random: Random, key: string, repo: string): unknown {
  if (random.chance(0.4)) return randomJson(random);
  switch (key) {
    case "limit":
    case "offset":
      return random.pick([0, 1, 10, 50, 51, 1000, 12_000, 50_000, -1, 2.5]);
    case "path":
      return random.pick([repo, join(repo, "src"), "/", "/etc", randomString(random)]);
    case "weights":
      return { vector: random.pick([0, 1, 11, -1]), lexical: random.below(3) };
    case "include":
      return random.pick([["memories"], ["code", "sessions"], [], ["everything"]]);
    case "entities":
      return [{ name: randomString(random), entityType: randomString(random), observations: [] }];
    case "relations":
      return [{ from: randomString(random), to: "billing", relationType: randomString(random) }];
    default:
      return randomString(random);
  }
}

Deno.test("every MCP tool takes any arguments: an answer or a refusal in words, never a crash; the store stays whole", async () => {
  const random = new Random(fuzzSeed());
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  await Deno.mkdir(join(repo, "src"), { recursive: true });
  await Deno.writeTextFile(join(repo, "src", "pay.py"), "def charge(amount):\n    return amount\n");
  const cairn = await openFuzzed(join(tmp.path, "store"));
  const failures: string[] = [];
  const tools = localTools(cairn, (line) => failures.push(line));
  // The caller's roots are the test's folder, as CAIRN_ALLOWED_ROOTS=tmp.path would make them
  // (set here, not in the environment other tests run in at the same time).
  const server = buildMcpServer((name, args) =>
    tools(name, args, { cwd: Deno.cwd(), roots: [tmp.path] })
  );
  const client = new Client({ name: "fuzz", version: "0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    await cairn.memories.remember({ content: "Billing retries failed charges three times" });
    await cairn.entities.createEntities([{ name: "billing", entityType: "service" }]);
    let answered = 0;
    let refused = 0;
    for (const tool of toolsFor("all")) {
      for (let i = 0; i < CALLS_PER_TOOL; i++) {
        const args: Record<string, unknown> = {};
        for (const key of Object.keys(tool.inputSchema)) {
          if (random.chance(0.7)) args[key] = argument(random, key, repo);
        }
        if (random.chance(0.1)) args[randomString(random)] = randomJson(random);
        const what = `${tool.name} ${JSON.stringify(args).slice(0, 300)}`;
        try {
          const result = await client.callTool({ name: tool.name, arguments: args });
          if (result.isError) refused++;
          else answered++;
        } catch (error) {
          // The SDK refuses arguments its schema rejects as a protocol error: a refusal too.
          const code = (error as { code?: number }).code;
          if (code === -32602) refused++;
          else failures.push(`${what}: ${(error as Error).message}`);
        }
      }
    }
    assert.deepEqual(failures, [], `seed ${random.seed}`);
    assert.ok(answered > 50 && refused > 50, `answered ${answered}, refused ${refused}`);
  } finally {
    await client.close();
    await server.close();
  }
  await assertStoreWhole(cairn);
});
