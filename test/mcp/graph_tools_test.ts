import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { openCairn } from "../../src/service/cairn.ts";
import { tempDir } from "../helpers.ts";
import "../embed/shared_model.ts";
import { httpClient, inMemoryClient, text } from "./mcp_client.ts";
import { serveHere } from "./serve_here.ts";

// Over stdio, `cairn mcp` is tested end to end in stdio_test.ts; here the tools themselves.
Deno.test("the MCP server offers the official memory server's graph tools, with the same arguments", async () => {
  await using tmp = await tempDir();
  const cairn = await openCairn(join(tmp.path, "store"));
  try {
    await using client = await inMemoryClient(cairn);
    await exercise(client);
  } finally {
    await cairn.close();
  }
});

Deno.test("cairn serve offers the same graph tools over HTTP", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  await using _serve = await serveHere(store);
  await using client = await httpClient(store);
  await exercise(client);
});

async function exercise(client: Client): Promise<void> {
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args }) as {
      isError?: boolean;
      structuredContent?: Record<string, unknown>;
    };
    return { ...result, body: text(result) };
  };
  const created = await call("create_entities", {
    entities: [
      { name: "Ada", entityType: "person", observations: ["maintains billing"] },
      { name: "billing", entityType: "service", observations: [] },
    ],
  });
  assert.notEqual(created.isError, true, created.body);
  assert.equal(created.structuredContent?.count, 2);
  await call("create_relations", {
    relations: [{ from: "Ada", to: "billing", relationType: "maintains" }],
  });
  await call("add_observations", {
    observations: [{ entityName: "billing", contents: ["charges cards nightly"] }],
  });
  const opened = await call("open_nodes", { names: ["Ada", "billing"] });
  assert.match(opened.body, /Ada —maintains→ billing/);
  assert.match(opened.body, /billing \(service\): charges cards nightly/);
  const found = await call("search_nodes", { query: "nightly" });
  assert.deepEqual(
    (found.structuredContent?.entities as Array<{ name: string }>).map((e) => e.name),
    ["billing"],
  );
  const page = await call("read_graph", { limit: 1 });
  assert.equal(page.structuredContent?.more, 1);
  assert.match(page.body, /1 more entity/);
  await new Promise((resolve) => setTimeout(resolve, 5));
  const then = new Date().toISOString();
  await new Promise((resolve) => setTimeout(resolve, 5));
  // What is there is deleted, and what is not is named as skipped, not as deleted.
  const unrelated = await call("delete_relations", {
    relations: [
      { from: "Ada", to: "billing", relationType: "maintains" },
      { from: "Ada", to: "billing", relationType: "audits" },
    ],
  });
  assert.equal(
    unrelated.body,
    "unrelated: Ada —maintains→ billing\nnot in the graph, so not deleted: Ada —audits→ billing",
  );
  assert.equal(unrelated.structuredContent?.count, 1);
  const forgotten = await call("delete_observations", {
    deletions: [{ entityName: "billing", observations: ["charges cards nightly", "runs on Go"] }],
  });
  assert.equal(
    forgotten.body,
    "deleted from billing: charges cards nightly\n" +
      "not in the graph, so not deleted (of billing): runs on Go",
  );
  const deleted = await call("delete_entities", { entityNames: ["Ada", "Nobody"] });
  assert.equal(
    deleted.body,
    "deleted Ada and their relations\nnot in the graph, so not deleted: Nobody",
  );
  assert.equal(deleted.structuredContent?.count, 1);
  const rest = await call("read_graph", {});
  assert.deepEqual(rest.structuredContent?.entities, [{
    name: "billing",
    entityType: "service",
    observations: [],
  }]);
  const past = await call("open_nodes", { names: ["Ada", "billing"], as_of: then });
  assert.match(past.body, /Ada —maintains→ billing/, "as it was before the deletions");
  const pastFound = await call("search_nodes", { query: "nightly", as_of: then });
  assert.match(pastFound.body, /charges cards nightly/);
  const pastRead = await call("read_graph", { as_of: then });
  assert.equal((pastRead.structuredContent?.entities as unknown[]).length, 2);
  const bad = await call("add_observations", {
    observations: [{ entityName: "nobody", contents: ["x"] }],
  });
  assert.equal(bad.isError, true);
  assert.match(bad.body, /no entity named nobody; nothing was changed \(create it first/);
  const dangling = await call("create_relations", {
    relations: [{ from: "billing", to: "nobody", relationType: "pays" }],
  });
  assert.equal(dangling.isError, true, "as on the command line: no entity is made up");
  assert.match(dangling.body, /no entity named nobody; nothing was changed/);
  const invalid = await call("create_entities", { entities: [] });
  assert.equal(invalid.isError, true);
  const refusals: Array<[string, Record<string, unknown>]> = [
    ["create_relations", { relations: [{ from: "", to: "billing", relationType: "uses" }] }],
    ["add_observations", { observations: [{ entityName: "billing", contents: [] }] }],
    ["delete_entities", { entityNames: "billing" }],
    ["delete_observations", { deletions: [{ entityName: "billing" }] }],
    [
      "delete_observations",
      { deletions: [{ entityName: "billing", observations: ["x".repeat(5000)] }] },
    ],
    ["delete_relations", { relations: [] }],
    ["open_nodes", { names: [] }],
    ["search_nodes", { query: "" }],
    ["read_graph", { limit: 0 }],
    ["read_graph", { as_of: "yesterday" }],
    ["open_nodes", { names: ["billing"], as_of: "soon" }],
  ];
  for (const [name, args] of refusals) {
    const refused = await call(name, args);
    assert.equal(refused.isError, true, `${name} ${JSON.stringify(args)}: ${refused.body}`);
    assert.doesNotMatch(refused.body, /\bat .*\.ts:\d+/, "no stack trace");
  }
  const unchanged = await call("read_graph", {});
  assert.deepEqual(unchanged.structuredContent?.entities, rest.structuredContent?.entities);
}
