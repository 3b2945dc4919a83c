import assert from "node:assert/strict";
import { openCairn } from "../../src/service/cairn.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";
import { tempDir } from "../helpers.ts";

Deno.test("pages far past the end are empty, and pages within keep their order: nothing large reaches Kùzu's ORDER BY", async () => {
  await using tmp = await tempDir();
  const cairn = await openCairn(tmp.path, { embedder: new FakeEmbedder() });
  try {
    for (let i = 0; i < 30; i++) {
      await cairn.memories.remember({
        content: `note number ${i} about topic ${i * 7}`,
        force: true,
      });
    }
    await cairn.entities.createEntities(
      Array.from(
        { length: 30 },
        (_, i) => ({ name: `entity ${String(i).padStart(2, "0")}`, entityType: "thing" }),
      ),
    );
    for (const offset of [50_000, 12_000, 1_000_000, Number.MAX_SAFE_INTEGER - 100]) {
      assert.deepEqual(await cairn.memories.list({ offset, limit: 50 }), []);
      const page = await cairn.entities.readGraph({ offset, limit: 50 });
      assert.deepEqual(page.entities, []);
      assert.equal(page.more, 0);
      assert.deepEqual(
        (await cairn.entities.searchNodes("entity", { offset, limit: 50 })).entities,
        [],
      );
    }
    const newest = await cairn.memories.list({ offset: 3, limit: 4 });
    assert.deepEqual(newest.map((m) => m.content.split(" ")[2]), ["26", "25", "24", "23"]);
    const names = (await cairn.entities.readGraph({ offset: 28, limit: 10 })).entities.map((e) =>
      e.name
    );
    assert.deepEqual(names, ["entity 28", "entity 29"]);
  } finally {
    await cairn.close();
  }
});
