import assert from "node:assert/strict";
import { MemoryLog } from "../../events/memory_log.ts";
import type { NewEvent } from "../../events/schema.ts";
import { MemoryCheckpoints } from "../../projections/checkpoints.ts";
import { GraphProjection } from "../../projections/graph/graph_projection.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { collect, remembered, tempDir } from "../helpers.ts";

const entity = (name: string, type: string, observations: string[] = []): NewEvent => ({
  type: "entity.created",
  v: 1,
  data: { name, entity_type: type, observations, project: null },
});

const scenario: NewEvent[] = [
  entity("Postgres", "database", ["runs on port 5432"]),
  entity("billing service", "service"),
  remembered("m1", "The billing service writes invoices to Postgres nightly."),
  {
    type: "relation.created",
    v: 1,
    data: { from: "billing service", to: "Postgres", relation_type: "uses" },
  },
  { type: "observations.added", v: 1, data: { entity: "Postgres", observations: ["version 16"] } },
  remembered("m2", "Deploys happen on Fridays."),
  {
    type: "memory.revised",
    v: 1,
    data: { id: "m2", content: "Deploys happen on Tuesdays; Postgres migrations first." },
  },
  remembered("m3", "temporary"),
  { type: "memory.forgotten", v: 1, data: { id: "m3" } },
  {
    type: "observations.deleted",
    v: 1,
    data: { entity: "Postgres", observations: ["runs on port 5432"] },
  },
];

async function mentions(graph: GraphProjection, id: string): Promise<string[]> {
  const rows = await graph.database.run(
    "MATCH (m:Memory {id: $id})-[:MENTIONS]->(e:Entity) RETURN e.name AS name ORDER BY name",
    { id },
  );
  return rows.map((row) => row.name as string);
}

Deno.test("GraphProjection links memories to the entities they name and keeps observations", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  await log.append(scenario);
  const graph = await GraphProjection.open(tmp.path);
  try {
    await ProjectionRunner.open(log, [graph], new MemoryCheckpoints());
    assert.deepEqual(await mentions(graph, "m1"), ["Postgres", "billing service"]);
    assert.deepEqual(await mentions(graph, "m2"), ["Postgres"]);
    const [pg] = await graph.database.run(
      "MATCH (e:Entity {name: 'Postgres'}) RETURN e.observations AS o",
    );
    assert.deepEqual(pg!.o, ["version 16"]);
    const [m3] = await graph.database.run("MATCH (m:Memory {id: 'm3'}) RETURN m.forgotten_at AS f");
    assert.notEqual(m3!.f, "");
    const relations = await graph.database.run(
      "MATCH (a:Entity)-[r:RELATES]->(b:Entity) RETURN a.name AS a, r.relation_type AS t, b.name AS b",
    );
    assert.deepEqual(relations, [{ a: "billing service", t: "uses", b: "Postgres" }]);
  } finally {
    await graph.close();
  }
});

Deno.test("GraphProjection: replay, re-applied batches and reopening all give the same digest", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  await log.append(scenario);
  await log.append([{ type: "entity.deleted", v: 1, data: { name: "billing service" } }]);
  const graph = await GraphProjection.open(tmp.path);
  const runner = await ProjectionRunner.open(log, [graph], new MemoryCheckpoints());
  const built = await graph.digest();
  await graph.apply(await collect(log.read()));
  assert.equal(await graph.digest(), built, "applying every event again changes nothing");
  await runner.rebuild();
  assert.equal(await graph.digest(), built, "replay from nothing is identical");
  await graph.close();
  const reopened = await GraphProjection.open(tmp.path);
  assert.equal(await reopened.digest(), built);
  assert.deepEqual(await mentions(reopened, "m1"), ["Postgres"]);
  await reopened.close();
});
