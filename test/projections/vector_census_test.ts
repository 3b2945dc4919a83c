import assert from "node:assert/strict";
import { join } from "node:path";
import { BlobStore } from "../../events/blobs.ts";
import { MemoryLog } from "../../events/memory_log.ts";
import { censusDisagrees, VectorCensus } from "../../projections/vectors/census.ts";
import { VectorsProjection } from "../../projections/vectors/vectors_projection.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";
import { remembered, tempDir } from "../helpers.ts";
import { fileIndexed, stored, turnIngested } from "./text_events.ts";

Deno.test("the census counts what the log leaves with a vector, and agrees with the vectors built from it", async () => {
  await using tmp = await tempDir();
  const blobs = new BlobStore(join(tmp.path, "blobs"));
  const chunk = (i: number) => ({ id: `p:a.py:${i}`, name: `f${i}`, text: `def f${i}(): pass` });
  const [lost] = await blobs.putMany(["def f1(): pass"]);
  const log = new MemoryLog();
  await log.append([
    await fileIndexed(blobs, "p", "a.py", [chunk(0), chunk(1), chunk(2)]),
    await fileIndexed(blobs, "gone", "b.py", [chunk(3)]),
    { type: "project.deleted", v: 1, data: { project: "gone" } },
    remembered("kept"),
    remembered("forgotten"),
    { type: "memory.forgotten", v: 1, data: { id: "forgotten" } },
    // A team member's late edit of a memory forgotten here gives it no vector back.
    { type: "memory.revised", v: 1, data: { id: "forgotten", content: "late edit" } },
    { type: "memory.revised", v: 1, data: { id: "kept", tags: ["x"] } },
    await turnIngested(blobs, "s1", 1, "a turn"),
  ]);
  const census = new VectorCensus();
  for await (const event of log.read(1)) census.note(event);
  assert.deepEqual(census.counts(), { memory: 1, code: 3, turn: 1 });

  const vectors = await VectorsProjection.open(
    join(tmp.path, "vectors"),
    new FakeEmbedder(),
    blobs,
    log,
  );
  try {
    const events = await Array.fromAsync(log.read(1));
    await vectors.apply(events);
    assert.equal(censusDisagrees(census.counts(), vectors.counts()), undefined);

    await Deno.writeTextFile(join(tmp.path, "blobs", lost!.slice(0, 2), lost!), "damaged");
    const withoutLost = new VectorCensus((hash) => hash === lost);
    for (const event of events) withoutLost.note(event);
    assert.deepEqual(
      withoutLost.counts(),
      { memory: 1, code: 2, turn: 1 },
      "an unreadable blob has no vector",
    );
  } finally {
    await vectors.close();
  }
});

Deno.test("the census names each source whose vectors differ", () => {
  const census = { memory: 3, code: 10, turn: 2 };
  assert.equal(
    censusDisagrees(census, { memory: 3, code: 10, turn: 5 }),
    undefined,
    "turns may have windows",
  );
  assert.equal(
    censusDisagrees(census, { memory: 1, code: 12, turn: 1 }),
    "holds 1 memory vector where the log has 3, 12 code chunk vectors where the log has 10, " +
      "1 session turn vector where the log has 2",
  );
});

Deno.test("a revision in the same batch as the forgetting before it gives the memory no vector", async () => {
  await using tmp = await tempDir();
  const blobs = new BlobStore(join(tmp.path, "blobs"));
  const vectors = await VectorsProjection.open(
    join(tmp.path, "vectors"),
    new FakeEmbedder(),
    blobs,
  );
  try {
    await vectors.apply(stored(
      remembered("m"),
      { type: "memory.forgotten", v: 1, data: { id: "m" } },
      { type: "memory.revised", v: 1, data: { id: "m", content: "late edit" } },
    ));
    assert.equal(vectors.counts().memory, 0);
  } finally {
    await vectors.close();
  }
});
