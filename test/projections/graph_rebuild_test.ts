import assert from "node:assert/strict";
import { MemoryLog } from "../../events/memory_log.ts";
import { GraphProjection } from "../../projections/graph/graph_projection.ts";
import { GraphStillHolds, rebuildGraph } from "../../projections/graph/graph_rebuild.ts";
import { collect, filesHolding, remembered, tempDir } from "../helpers.ts";

const SECRET = "hunter2-staging-password";

Deno.test("rebuildGraph() builds the graph from the log aside and swaps it in: deleted strings leave the files, handles keep working", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  await log.append([
    remembered("keep", "Deploys go out on Tuesdays"),
    remembered("secret", `The staging password is ${SECRET}`),
    { type: "memory.purged", v: 1, data: { id: "secret" } },
  ]);
  const graph = await GraphProjection.open(tmp.path);
  try {
    await graph.apply(await collect(log.read()));
    const handle = graph.database;
    assert.ok((await filesHolding(tmp.path, SECRET)).length > 0, "Kùzu keeps the deleted string");
    await log.rewrite((event) => event.seq === 1);
    await rebuildGraph(graph, log, log.head);
    assert.deepEqual(await filesHolding(tmp.path, SECRET), []);
    const rows = await handle.run("MATCH (m:Memory) RETURN m.id AS id, m.content AS content");
    assert.deepEqual(rows, [{ id: "keep", content: "Deploys go out on Tuesdays" }]);
    assert.deepEqual([...Deno.readDirSync(tmp.path)].map((entry) => entry.name), ["graph.kuzu"]);
  } finally {
    await graph.close();
  }
});

Deno.test("rebuildGraph() takes the log only up to the last event the graph holds", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  await log.append([remembered("a"), remembered("b")]);
  const graph = await GraphProjection.open(tmp.path);
  try {
    await rebuildGraph(graph, log, 1);
    const rows = await graph.database.run("MATCH (m:Memory) RETURN m.id AS id");
    assert.deepEqual(rows, [{ id: "a" }]);
  } finally {
    await graph.close();
  }
});

Deno.test("rebuildGraph() looks for what its files must not hold, in Kùzu's own pages, and refuses a result that still holds it", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  await log.append([remembered("keep", "Deploys go out on Tuesdays")]);
  const graph = await GraphProjection.open(tmp.path);
  try {
    await graph.apply(await collect(log.read()));
    await rebuildGraph(graph, log, log.head, [SECRET]);
    // A text the log still carries is in the rebuilt graph: the search finds it there, twice.
    await assert.rejects(
      rebuildGraph(graph, log, log.head, ["Deploys go out on Tuesdays"]),
      (error: Error) =>
        error instanceof GraphStillHolds &&
        /after two rebuilds: graph\.kuzu in /.test(error.message),
    );
    const rows = await graph.database.run("MATCH (m:Memory) RETURN m.id AS id");
    assert.deepEqual(rows, [{ id: "keep" }], "the graph still answers");
  } finally {
    await graph.close();
  }
});
