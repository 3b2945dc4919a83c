import assert from "node:assert/strict";
import { openCairn } from "../../src/service/cairn.ts";
import { UserError } from "../../src/service/errors.ts";
import { collect, tempDir } from "../helpers.ts";

Deno.test("GraphOps does what the official memory server does, as events, with paginated reads", async () => {
  await using tmp = await tempDir();
  const cairn = await openCairn(tmp.path);
  try {
    const g = cairn.entities;
    const created = await g.createEntities([
      { name: "Ada", entityType: "person", observations: ["maintains billing"] },
      { name: "billing", entityType: "service" },
      { name: "Ada", entityType: "person" },
    ]);
    assert.deepEqual(created.map((e) => e.name), ["Ada", "billing"]);
    assert.deepEqual(
      await g.createEntities([{ name: "Ada", entityType: "person" }]),
      [],
      "known entities are skipped",
    );
    assert.equal(
      (await g.createRelations([{ from: "Ada", to: "billing", relationType: "maintains" }])).length,
      1,
    );
    assert.equal(
      (await g.createRelations([{ from: "Ada", to: "billing", relationType: "maintains" }])).length,
      0,
    );
    assert.deepEqual(
      await g.addObservations([{
        entityName: "Ada",
        contents: ["maintains billing", "on call in March"],
      }]),
      [
        { entityName: "Ada", addedObservations: ["on call in March"] },
      ],
    );
    await assert.rejects(
      () => g.addObservations([{ entityName: "Bob", contents: ["x"] }]),
      UserError,
    );

    const opened = await g.openNodes(["Ada", "billing"]);
    assert.deepEqual(opened.entities[0], {
      name: "Ada",
      entityType: "person",
      observations: ["maintains billing", "on call in March"],
    });
    assert.deepEqual(opened.relations, [{ from: "Ada", to: "billing", relationType: "maintains" }]);
    assert.deepEqual((await g.searchNodes("MARCH")).entities.map((e) => e.name), ["Ada"]);
    const first = await g.readGraph({ limit: 1 });
    assert.deepEqual([first.entities.length, first.more], [1, 1]);
    assert.deepEqual((await g.readGraph({ offset: 1, limit: 1 })).more, 0);

    await g.deleteObservations([{ entityName: "Ada", contents: ["on call in March"] }]);
    await g.deleteRelations([{ from: "Ada", to: "billing", relationType: "maintains" }]);
    assert.deepEqual((await g.openNodes(["Ada", "billing"])).relations, []);
    await g.deleteEntities(["billing", "nobody"]);
    assert.deepEqual((await g.readGraph()).entities.map((e) => e.name), ["Ada"]);
    const types = (await collect(cairn.store.log.read())).map((e) => e.type);
    assert.deepEqual(types, [
      "entity.created",
      "entity.created",
      "relation.created",
      "observations.added",
      "observations.deleted",
      "relation.deleted",
      "entity.deleted",
    ]);
  } finally {
    await cairn.close();
  }
});
