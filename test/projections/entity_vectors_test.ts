import assert from "node:assert/strict";
import { join } from "node:path";
import { BlobStore } from "../../events/blobs.ts";
import { MemoryLog } from "../../events/memory_log.ts";
import type { NewEvent } from "../../events/schema.ts";
import { MemoryCheckpoints } from "../../projections/checkpoints.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { VectorsProjection } from "../../projections/vectors/vectors_projection.ts";
import { storeEmbedder } from "../../src/embed/load.ts";
import { tempDir } from "../helpers.ts";

const created = (name: string, type: string, observations: string[]) =>
  ({
    type: "entity.created",
    v: 1,
    data: { name, entity_type: type, observations, project: "p" },
  }) satisfies NewEvent;

const related = (from: string, type: string, to: string) =>
  ({ type: "relation.created", v: 1, data: { from, to, relation_type: type } }) satisfies NewEvent;

Deno.test("an entity is found by the meaning of each of its facts, and loses them as the graph does", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  await log.append([
    created("Ada", "person", [
      "Prefers the Go programming language over Python",
      "Lives in Lyon",
    ]),
    created("billing", "service", ["Charges customers every month through Stripe"]),
    related("Ada", "maintains", "billing"),
    related("Grace", "mentors", "Ada"),
  ]);
  const embedder = await storeEmbedder(tmp.path);
  const vectors = await VectorsProjection.open(
    join(tmp.path, "vectors"),
    embedder,
    new BlobStore(join(tmp.path, "blobs")),
    log,
  );
  assert.deepEqual(
    await vectors.pending(0),
    [{ source: "entity", project: null, documents: 7 }],
    "each observation waits, and each relation on both its ends",
  );
  const runner = await ProjectionRunner.open(log, [vectors], new MemoryCheckpoints());
  try {
    await runner.settled();
    const near = async (query: string, project: string | null = "elsewhere") =>
      vectors.search("entity", await embedder.embedQuery(query), { project, limit: 3 })
        .map((hit) => hit.id);
    assert.equal((await near("which coding language does she like?"))[0], "entity:Ada");
    assert.equal((await near("how are customers invoiced?"))[0], "entity:billing");
    assert.deepEqual(
      (await near("who mentors whom", null)).sort(),
      ["entity:Ada", "entity:Grace", "entity:billing"],
      "an entity is one hit however many of its facts are near",
    );
    assert.equal(vectors.counts().entity, 7);

    await log.append([
      {
        type: "observations.deleted",
        v: 1,
        data: { entity: "Ada", observations: ["Prefers the Go programming language over Python"] },
      },
      {
        type: "relation.deleted",
        v: 1,
        data: { from: "Grace", to: "Ada", relation_type: "mentors" },
      },
    ]);
    await runner.catchUp();
    await runner.settled();
    assert.equal(vectors.counts().entity, 4);
    assert.ok(!(await near("who mentors whom")).includes("entity:Grace"));

    await log.append([{ type: "entity.deleted", v: 1, data: { name: "Ada" } }]);
    await runner.catchUp();
    await runner.settled();
    assert.equal(vectors.counts().entity, 1, "its relations go from the other end too");
    assert.deepEqual(await near("maintains, lives in Lyon"), ["entity:billing"]);

    const built = await vectors.digest();
    await runner.rebuild("vectors");
    assert.equal(await vectors.digest(), built, "replay from nothing gives the same vectors");
  } finally {
    await runner.close();
  }
});
