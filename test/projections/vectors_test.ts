import assert from "node:assert/strict";
import { join } from "node:path";
import { MemoryLog } from "../../events/memory_log.ts";
import { MemoryCheckpoints } from "../../projections/checkpoints.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import {
  ModelMismatchError,
  VectorsProjection,
} from "../../projections/vectors/vectors_projection.ts";
import { LazyEmbedder } from "../../src/embed/lazy_embedder.ts";
import { storeEmbedder } from "../../src/embed/load.ts";
import { collect, remembered, tempDir } from "../helpers.ts";

Deno.test("VectorsProjection finds memories by meaning, follows revisions and forgetting, and replays identically", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  await log.append([
    remembered("pool", "Database connections are pooled with a maximum of 20 per worker.", "api"),
    remembered("cake", "The birthday cake recipe needs three eggs and butter.", "api"),
    remembered("global", "Always run the linter before committing.", null),
    remembered("elsewhere", "Connection pools in the other service are unbounded.", "web"),
  ]);
  const embedder = await storeEmbedder(tmp.path);
  const vectors = await VectorsProjection.open(join(tmp.path, "vectors"), embedder);
  const runner = await ProjectionRunner.open(log, [vectors], new MemoryCheckpoints());
  try {
    await runner.settled();
    const near = async (query: string, project: string | null) =>
      vectors.search("memory", await embedder.embedQuery(query), { project, limit: 2 }).map((hit) =>
        hit.id
      );
    assert.deepEqual(
      (await near("how many db connections can a worker open?", "api"))[0],
      "memory:pool",
    );
    assert.ok(!(await near("connection pool size", "api")).includes("memory:elsewhere"));
    assert.equal((await near("connection pool size", null))[0]?.startsWith("memory:"), true);
    const before = await vectors.digest();
    await vectors.apply(await collect(log.read()));
    assert.equal(await vectors.digest(), before, "re-applying changes nothing");

    await log.append([
      {
        type: "memory.revised",
        v: 1,
        data: { id: "cake", content: "Deploys go out every Tuesday afternoon." },
      },
      { type: "memory.forgotten", v: 1, data: { id: "pool" } },
    ]);
    await runner.catchUp();
    await runner.settled();
    assert.equal((await near("when do we ship releases?", "api"))[0], "memory:cake");
    assert.ok(!(await near("database connection pooling", "api")).includes("memory:pool"));
    const built = await vectors.digest();
    await runner.rebuild("vectors");
    assert.equal(await vectors.digest(), built, "replay from nothing gives the same vectors");
    assert.deepEqual(vectors.counts(), { memory: 3, code: 0, turn: 0 });
  } finally {
    await runner.close();
  }
});

Deno.test("VectorsProjection.open() refuses vectors built by another model, naming both", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "vectors");
  const first = await VectorsProjection.open(
    dir,
    new LazyEmbedder("model-a", 384, () => Promise.reject()),
  );
  await first.close();
  await assert.rejects(
    () => VectorsProjection.open(dir, new LazyEmbedder("model-b", 384, () => Promise.reject())),
    (error: Error) =>
      error instanceof ModelMismatchError &&
      /built with model-a, not model-b/.test(error.message) &&
      /delete .*vectors to rebuild them with model-b/.test(error.message),
  );
});
