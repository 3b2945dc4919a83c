import assert from "node:assert/strict";
import { MemoryLog } from "../../events/memory_log.ts";
import type { NewEvent } from "../../events/schema.ts";
import { MemoryCheckpoints } from "../../projections/checkpoints.ts";
import { GraphProjection } from "../../projections/graph/graph_projection.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { memoryNeighbourhood } from "../../src/recall/graph_neighbourhood.ts";
import { remembered, tempDir } from "../helpers.ts";

Deno.test("memoryNeighbourhood() walks seed → entities → related entities → other memories", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  const entity = (name: string): NewEvent => ({
    type: "entity.created",
    v: 1,
    data: { name, entity_type: "service", observations: [], project: null },
  });
  await log.append([
    entity("gateway"),
    entity("auth"),
    {
      type: "relation.created",
      v: 1,
      data: { from: "gateway", to: "auth", relation_type: "calls" },
    },
    remembered("seed", "The gateway times out after 30 s."),
    remembered("near", "The gateway retries twice."),
    remembered("far", "auth tokens live 1 hour."),
    remembered("gone", "The gateway used nginx."),
    { type: "memory.forgotten", v: 1, data: { id: "gone" } },
    remembered("alone", "Unrelated note."),
  ]);
  const graph = await GraphProjection.open(tmp.path);
  try {
    await ProjectionRunner.open(log, [graph], new MemoryCheckpoints());
    const edges = await memoryNeighbourhood(graph.database, ["seed"]);
    const set = new Set(edges.map(([a, b]) => `${a} ${b}`));
    assert.ok(set.has("memory:seed entity:gateway"));
    assert.ok(set.has("entity:gateway entity:auth"));
    assert.ok(set.has("memory:near entity:gateway"));
    assert.ok(set.has("memory:far entity:auth"));
    assert.ok(
      ![...set].some((edge) => edge.includes("memory:gone") || edge.includes("memory:alone")),
    );
    assert.deepEqual(await memoryNeighbourhood(graph.database, []), []);
  } finally {
    await graph.close();
  }
});
