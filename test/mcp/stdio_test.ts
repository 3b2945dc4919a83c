import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { cliHere } from "../cli/in_process.ts";
import { httpClient, killOwner, startServe, stdioClient, text } from "./mcp_client.ts";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

type Result = { isError?: boolean; structuredContent?: Record<string, unknown> };

function refused(result: unknown, pattern: RegExp): void {
  const r = result as Result;
  assert.equal(r.isError, true, `expected an error, got ${text(result)}`);
  assert.match(text(result), pattern);
  assert.doesNotMatch(text(result), /\n\s+at /, "no stack trace");
}

function ok(result: unknown): Record<string, unknown> {
  const r = result as Result;
  assert.notEqual(r.isError, true, text(result));
  return r.structuredContent ?? {};
}

Deno.test("cairn mcp (stdio) answers tools/list at once and every tool, refusing bad input with what to fix", async () => {
  await using tmp = await tempDir();
  const { store, repo } = await workspace(tmp.path);
  const spawned = performance.now();
  await using client = await stdioClient(store, [], { CAIRN_ALLOWED_ROOTS: tmp.path });
  try {
    await client.listTools();
    console.log(`tools/list answered ${Math.round(performance.now() - spawned)} ms after spawn`);
    await everyTool(client, repo);
  } finally {
    await client.close();
    await killOwner(store, "SIGTERM");
  }
});

Deno.test("cairn serve (HTTP) answers every tool, refusing bad input with what to fix", async () => {
  await using tmp = await tempDir();
  const { store, repo } = await workspace(tmp.path);
  await using _serve = await startServe(store, { CAIRN_ALLOWED_ROOTS: tmp.path });
  await using client = await httpClient(store);
  await everyTool(client, repo);
});

/** A store to be and a repository with one TypeScript file, under `root`. */
async function workspace(root: string): Promise<{ store: string; repo: string }> {
  const repo = join(root, "repo");
  await Deno.mkdir(join(repo, "src"), { recursive: true });
  await Deno.writeTextFile(
    join(repo, "src", "billing.ts"),
    "/** Charges a card. */\nexport function chargeCard(cents: number): boolean {\n  return cents > 0;\n}\n",
  );
  return { store: join(root, "store"), repo };
}

/** Calls every tool with good and bad input through `client`, checking each answer. */
async function everyTool(client: Client, repo: string): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name), [
    "recall",
    "search",
    "search_text",
    "search_code",
    "open",
    "session_history",
    "remember",
    "revise",
    "forget",
    "list_memories",
    "index_project",
    "get_index_status",
    "list_projects",
    "delete_project",
    "store_status",
    "create_entities",
    "create_relations",
    "add_observations",
    "delete_entities",
    "delete_observations",
    "delete_relations",
    "open_nodes",
    "search_nodes",
    "read_graph",
  ]);
  for (const tool of tools) assert.ok(tool.description && tool.outputSchema, tool.name);

  const first = ok(
    await client.callTool({
      name: "remember",
      arguments: { content: "We deploy billing with blue-green releases.", project: "team" },
    }),
  );
  assert.equal(first.duplicate, false);
  const id = first.id as string;
  const again = ok(
    await client.callTool({
      name: "remember",
      arguments: { content: "We deploy billing with blue-green releases.", project: "team" },
    }),
  );
  assert.deepEqual(again, { id, duplicate: true });
  ok(
    await client.callTool({
      name: "remember",
      arguments: {
        content: "Postgres backups run nightly.",
        kind: "fact",
        tags: ["ops"],
        source: "docs/ops.md",
        relations: ["billing|stores data in|Postgres"],
      },
    }),
  );
  assert.match(
    text(await client.callTool({ name: "open_nodes", arguments: { names: ["billing"] } })),
    /billing —stores data in→ Postgres/,
    "remember's relations are in the graph",
  );
  refused(await client.callTool({ name: "remember", arguments: { content: " " } }), /empty/);
  refused(
    await client.callTool({ name: "remember", arguments: { content: "x".repeat(65 * 1024) } }),
    /Input validation error.*content/,
  );
  refused(
    await client.callTool({ name: "remember", arguments: { content: "x", kind: "rumour" } }),
    /kind/,
  );
  refused(
    await client.callTool({
      name: "remember",
      arguments: { content: "x", relations: ["billing uses Postgres"] },
    }),
    /FROM\|RELATION\|TO/,
  );

  const markdown = await client.callTool({
    name: "recall",
    arguments: { query: "how do we deploy billing?", project: "team" },
  });
  assert.match(
    text(markdown),
    /^1\. \[memory note \d{4}-\d{2}-\d{2} mem_[0-9a-z]+\] We deploy billing/,
  );
  const json = ok(
    await client.callTool({
      name: "recall",
      arguments: { query: "postgres backups", format: "json", limit: 100 },
    }),
  );
  assert.ok((json.notes as string[]).some((note) => /capped at 50/.test(note)));
  const results = json.results as Array<Record<string, unknown>>;
  assert.equal(results[0]?.content, "Postgres backups run nightly.");
  assert.equal(results[0]?.source, "docs/ops.md");
  assert.doesNotMatch(JSON.stringify(results), /embedding|vector"/, "no embeddings returned");
  refused(
    await client.callTool({ name: "recall", arguments: { query: "q".repeat(65_537) } }),
    /query/,
  );
  refused(await client.callTool({ name: "recall", arguments: {} }), /query/);
  refused(
    await client.callTool({ name: "recall", arguments: { query: "x", projct: "web" } }),
    /unknown argument "projct" \(did you mean project\?\)/,
  );
  refused(
    await client.callTool({ name: "recall", arguments: { query: "x", mode: "magic" } }),
    /mode/,
  );
  const byWords = ok(
    await client.callTool({
      name: "recall",
      arguments: {
        query: "postgres backups",
        format: "json",
        weights: { vector: 0, lexical: 1 },
        valid_at: "2030-01-01",
      },
    }),
  );
  assert.equal(
    (byWords.results as Array<{ content: string }>)[0]?.content,
    "Postgres backups run nightly.",
  );
  const before = ok(
    await client.callTool({
      name: "recall",
      arguments: { query: "postgres backups", as_of: "2001-01-01" },
    }),
  );
  assert.equal(before.count, 0, "nothing was known in 2001");
  for (const weights of [{ vector: -1 }, { magic: 1 }]) {
    refused(
      await client.callTool({ name: "recall", arguments: { query: "x", weights } }),
      /weights/,
    );
  }
  refused(
    await client.callTool({ name: "recall", arguments: { query: "x", as_of: "last week" } }),
    /as_of/,
  );

  ok(await client.callTool({ name: "search", arguments: { query: "database backup schedule" } }));
  refused(await client.callTool({ name: "search", arguments: { query: 42 } }), /query/);
  const words = await client.callTool({ name: "search_text", arguments: { query: "nightly" } });
  assert.match(text(words), /Postgres backups run nightly/);
  refused(
    await client.callTool({ name: "search_text", arguments: { query: "x", include: [] } }),
    /include/,
  );

  ok(
    await client.callTool({
      name: "revise",
      arguments: { id, content: "We deploy billing with canary releases." },
    }),
  );
  refused(await client.callTool({ name: "revise", arguments: { id } }), /nothing to revise/);
  refused(
    await client.callTool({ name: "revise", arguments: { id: "mem_nope", content: "x" } }),
    /no memory with id mem_nope/,
  );

  const listed = ok(await client.callTool({ name: "list_memories", arguments: {} }));
  assert.equal(listed.count, 2);
  assert.match(text(await client.callTool({ name: "list_memories", arguments: {} })), /canary/);
  refused(await client.callTool({ name: "list_memories", arguments: { limit: 0 } }), /limit/);
  const past = { as_of: "2001-01-01T00:00:00Z" };
  assert.equal(ok(await client.callTool({ name: "list_memories", arguments: past })).count, 0);
  const pastWords = ok(
    await client.callTool({ name: "search_text", arguments: { query: "canary", ...past } }),
  );
  assert.equal(pastWords.count, 0, "nothing was known in 2001");
  refused(
    await client.callTool({ name: "list_memories", arguments: { as_of: "someday" } }),
    /as_of/,
  );

  ok(await client.callTool({ name: "forget", arguments: { id, reason: "obsolete" } }));
  refused(await client.callTool({ name: "forget", arguments: { id: "" } }), /id/);
  refused(await client.callTool({ name: "forget", arguments: { id: "mem_nope" } }), /no memory/);
  assert.equal(ok(await client.callTool({ name: "list_memories", arguments: {} })).count, 1);
  const indexed = ok(
    await client.callTool({ name: "index_project", arguments: { path: repo, project: "shop" } }),
  );
  assert.equal(indexed.project, "shop");
  assert.equal(indexed.indexed, 1);
  const watched = await client.callTool({
    name: "index_project",
    arguments: { path: repo, project: "shop", watch: true },
  });
  assert.match(text(watched), /\nwatching for changes$/);
  assert.match(
    text(
      await client.callTool({
        name: "index_project",
        arguments: { path: repo, project: "shop", watch: true },
      }),
    ),
    /already watching/,
  );
  const code = await client.callTool({
    name: "search_text",
    arguments: { query: "chargeCard", include: ["code"] },
  });
  assert.match(text(code), /src\/billing\.ts:\d+-\d+\] `chargeCard`/);
  const found = await client.callTool({
    name: "search_code",
    arguments: { query: "charge the card", project: "shop", language: "typescript", path: "src" },
  });
  assert.match(text(found), /src\/billing\.ts:\d+-\d+\] `chargeCard`/);
  // The handle an answer shows opens the whole chunk, with its file's outline.
  const handle = /\[code ([^\]]+)\]/.exec(text(found))![1]!;
  const opened = await client.callTool({ name: "open", arguments: { handle } });
  assert.match(text(opened), /export function chargeCard\(cents: number\): boolean \{/);
  assert.match(text(opened), /^In src\/billing\.ts:$/m);
  refused(
    await client.callTool({ name: "open", arguments: { handle: "mem_missing" } }),
    /no memory with id mem_missing/,
  );
  const elsewhere = ok(
    await client.callTool({ name: "search_code", arguments: { query: "charge", path: "docs" } }),
  );
  assert.equal(elsewhere.count, 0, "nothing is indexed under docs/");
  refused(
    await client.callTool({ name: "search_code", arguments: { query: "x", path: "../etc" } }),
    /relative to the project's root and stay inside it/,
  );
  refused(
    await client.callTool({ name: "search_code", arguments: { query: "x", language: "cobol" } }),
    /expected one of "typescript"\|"tsx"\|.*"python".* at language/,
  );
  refused(
    await client.callTool({ name: "search_code", arguments: { query: "x", project: "nope" } }),
    /no project named nope is indexed/,
  );
  refused(await client.callTool({ name: "search_code", arguments: { query: " " } }), /empty/);
  const capped = ok(
    await client.callTool({ name: "search_code", arguments: { query: "charge", limit: 60 } }),
  );
  assert.ok((capped.notes as string[]).includes("limit capped at 50"));
  const python = ok(
    await client.callTool({
      name: "recall",
      arguments: { query: "chargeCard", include: ["code"], language: "python" },
    }),
  );
  assert.equal(python.count, 0, "recall keeps code of the language asked");
  assert.match(
    text(
      await client.callTool({
        name: "recall",
        arguments: { query: "chargeCard", language: "typescript" },
      }),
    ),
    /src\/billing\.ts:\d+-\d+\] `chargeCard`/,
  );
  const history = ok(
    await client.callTool({ name: "session_history", arguments: { path: "src/billing.ts" } }),
  );
  assert.equal(history.count, 0);
  assert.match((history.notes as string[])[0]!, /no ingested session touched src\/billing\.ts/);
  refused(await client.callTool({ name: "session_history", arguments: { path: "" } }), /path/);
  ok(
    await client.callTool({
      name: "recall",
      arguments: { query: "card payments", include: ["sessions"], session: "s-1" },
    }),
  );
  refused(
    await client.callTool({ name: "recall", arguments: { query: "x", session: "" } }),
    /session/,
  );
  const topic = ok(
    await client.callTool({ name: "session_history", arguments: { query: "card payments" } }),
  );
  assert.match((topic.notes as string[])[0]!, /no ingested session is about "card payments"/);
  refused(
    await client.callTool({ name: "session_history", arguments: {} }),
    /either a path or a query/,
  );
  const status = ok(await client.callTool({ name: "get_index_status", arguments: {} }));
  assert.deepEqual((status.projects as Array<{ project: string }>).map((p) => p.project), [
    "shop",
  ]);
  assert.match(
    text(await client.callTool({ name: "get_index_status", arguments: { project: "shop" } })),
    /shop .*\n\s+1 files, \d+ chunks, last indexed [^]*last run/,
  );
  const ready = await client.callTool({ name: "store_status", arguments: {} });
  assert.match(text(ready), /^code +1 project, 1 file, 1 chunk$/m);
  assert.match(text(ready), /^owner +pid \d+, port \d+, up /m, "the owner answers");
  const projectList = await client.callTool({ name: "list_projects", arguments: {} });
  const projects = ok(projectList);
  assert.deepEqual((projects.projects as Array<{ project: string }>).map((p) => p.project), [
    "shop",
  ]);
  assert.deepEqual(projects.notes, []);
  assert.match(text(projectList), /^- shop \(.*repo\): 1 files, \d+ chunks, last indexed \d{4}-/);
  refused(
    await client.callTool({ name: "index_project", arguments: { path: "/" } }),
    /outside the folders cairn may read/,
  );
  refused(
    await client.callTool({ name: "index_project", arguments: { path: "/etc" } }),
    /outside the folders cairn may read/,
  );
  refused(
    await client.callTool({ name: "get_index_status", arguments: { project: "nope" } }),
    /no project named nope/,
  );
  const deleted = await client.callTool({ name: "delete_project", arguments: { project: "shop" } });
  assert.match(text(deleted), /deleted the code index of shop and stopped watching its folder/);
  // The watch is gone: a save after the delete does not bring the project back.
  await Deno.writeTextFile(join(repo, "src", "billing.ts"), "export const saved = 1;\n", {
    append: true,
  });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const gone = ok(await client.callTool({ name: "get_index_status", arguments: {} }));
  assert.deepEqual(gone.projects, []);
  const afterDelete = await client.callTool({
    name: "recall",
    arguments: { query: "chargeCard", include: ["code"] },
  });
  assert.doesNotMatch(text(afterDelete), /chargeCard/, "its code left recall");
  refused(
    await client.callTool({ name: "delete_project", arguments: { project: "shop" } }),
    /no project named shop is indexed/,
  );
  refused(await client.callTool({ name: "no_such_tool", arguments: {} }), /not found/);
}

Deno.test("cairn mcp --tools core lists only the core tools", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  // No model: the owner it starts has nothing to load for a list of tools.
  await Deno.mkdir(store);
  await Deno.writeTextFile(
    join(store, "config.json"),
    JSON.stringify({ embedder: { kind: "onnx", model_dir: join(tmp.path, "no-model") } }),
  );
  await using client = await stdioClient(store, ["--tools", "core"]);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), [
      "recall",
      "open",
      "remember",
      "forget",
      "index_project",
      "get_index_status",
    ]);
  } finally {
    await client.close();
    await killOwner(store, "SIGTERM");
  }
});

Deno.test("cairn mcp refuses an unknown tool profile", async () => {
  const result = await cliHere(["mcp", "--tools", "most"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--tools is core or all/);
});
