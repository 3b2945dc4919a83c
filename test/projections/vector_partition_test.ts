import assert from "node:assert/strict";
import { join } from "node:path";
import { VectorPartition } from "../../projections/vectors/vector_partition.ts";
import { tempDir } from "../helpers.ts";

const DIMS = 16;

/** A unit vector that points mostly along axis `i % DIMS`, a little along the next, by `i`. */
function vector(i: number): Float32Array {
  const v = new Float32Array(DIMS);
  v[i % DIMS] = 1;
  v[(i + 1) % DIMS] = (i % 97) / 200;
  return v;
}

const lines = async (path: string) =>
  (await Deno.readTextFile(path)).split("\n").filter(Boolean).length;

Deno.test("VectorPartition keeps every vector through reopening: batches append, the whole index is saved now and then", async () => {
  await using tmp = await tempDir();
  const path = (kind: string) => join(tmp.path, `code.p.${kind}`);
  let partition = await VectorPartition.open(tmp.path, "code.p", DIMS);
  for (let i = 0; i < 100; i++) partition.upsert(`c${i}`, `h${i}`, vector(i), `f${i % 10}`);
  await partition.save();
  await assert.rejects(
    Deno.stat(path("usearch")),
    Deno.errors.NotFound,
    "small batches only append",
  );
  assert.equal((await Deno.stat(path("pending"))).size, 100 * (8 + 4 * DIMS));

  partition = await VectorPartition.open(tmp.path, "code.p", DIMS);
  assert.equal(partition.size, 100);
  assert.equal(partition.search(vector(42), 1)[0]?.id, "c42");
  assert.deepEqual(
    partition.members("f3").sort(),
    ["c13", "c23", "c3", "c33", "c43", "c53", "c63", "c73", "c83", "c93"].sort(),
  );

  // Enough vectors that the pending ones outgrow the threshold: the index is saved whole.
  for (let i = 100; i < 5000; i++) partition.upsert(`c${i}`, `h${i}`, vector(i));
  partition.remove("c7");
  await partition.save();
  assert.ok((await Deno.stat(path("usearch"))).size > 0);
  assert.equal((await Deno.stat(path("pending"))).size, 0);
  assert.equal(await lines(path("keys")), 4999, "the journal is rewritten to the live entries");

  // Changes after the whole save: a removal the saved index still holds, a replacement.
  partition.remove("c4000");
  partition.upsert("c1", "h1-new", vector(4));
  await partition.save();
  partition = await VectorPartition.open(tmp.path, "code.p", DIMS);
  assert.equal(partition.size, 4998);
  assert.equal(partition.holds("c1", "h1-new"), true);
  const near = partition.search(vector(4000), 50).map((hit) => hit.id);
  assert.ok(!near.includes("c4000") && !near.includes("c7"), "removed vectors are not found");
  assert.equal(near.length, 50);
});

Deno.test("VectorPartition after a crash: a torn pending record is ignored, and keys whose vectors never reached the disk are forgotten", async () => {
  await using tmp = await tempDir();
  const path = (kind: string) => join(tmp.path, `memory.p.${kind}`);
  const partition = await VectorPartition.open(tmp.path, "memory.p", DIMS);
  for (let i = 0; i < 10; i++) partition.upsert(`m${i}`, `h${i}`, vector(i));
  await partition.save();
  for (let i = 10; i < 13; i++) partition.upsert(`m${i}`, `h${i}`, vector(i));
  await partition.save();
  // The last batch's vectors cut short: one whole record and a part of the next are gone.
  const size = 8 + 4 * DIMS;
  await Deno.truncate(path("pending"), 12 * size - 5);
  // And a journal line of a batch that never finished.
  await Deno.writeTextFile(path("keys"), "+\t99\tm99", { append: true });

  const reopened = await VectorPartition.open(tmp.path, "memory.p", DIMS);
  assert.equal(reopened.size, 11);
  assert.equal(reopened.holds("m10", "h10"), true);
  assert.equal(reopened.holds("m11", "h11"), false);
  assert.equal(reopened.holds("m12", "h12"), false);
  reopened.upsert("m11", "h11", vector(11));
  await reopened.save();
  const again = await VectorPartition.open(tmp.path, "memory.p", DIMS);
  assert.equal(again.search(vector(11), 1)[0]?.id, "m11");
  assert.equal(again.size, 12);
});

Deno.test("VectorPartition.upsertMany() stores a batch like single upserts, the last of a repeated id winning", async () => {
  await using dir = await tempDir();
  const one = await VectorPartition.open(dir.path, "one", DIMS);
  const many = await VectorPartition.open(dir.path, "many", DIMS);
  for (let i = 0; i < 300; i++) one.upsert(`c${i}`, `h${i}`, vector(i), `f${i % 7}`);
  one.upsert("c5", "h5-new", vector(1000), "f5");
  many.upsertMany([
    ...Array.from({ length: 300 }, (_, i) => ({
      id: `c${i}`,
      textHash: `h${i}`,
      vector: vector(i),
      group: `f${i % 7}`,
    })),
    { id: "c5", textHash: "h5-new", vector: vector(1000), group: "f5" },
  ]);
  assert.equal(many.size, 300);
  assert.ok(many.holds("c5", "h5-new"));
  assert.deepEqual(many.members("f3").sort(), one.members("f3").sort());
  for (const probe of [0, 42, 299, 1000]) {
    assert.deepEqual(many.search(vector(probe), 5), one.search(vector(probe), 5));
  }
  await many.save();
  const reopened = await VectorPartition.open(dir.path, "many", DIMS);
  assert.deepEqual(reopened.search(vector(42), 5), one.search(vector(42), 5));
});

Deno.test("VectorPartition.close() saves the index whole when many vectors are pending, only then", async () => {
  await using tmp = await tempDir();
  const pending = () => Deno.stat(join(tmp.path, "code.p.pending")).then((stat) => stat.size);
  let partition = await VectorPartition.open(tmp.path, "code.p", DIMS);
  const add = async (from: number, to: number) => {
    const entries = [];
    for (let i = from; i < to; i++) {
      entries.push({ id: `c${i}`, textHash: `h${i}`, vector: vector(i) });
    }
    partition.upsertMany(entries);
    await partition.save();
  };
  await add(0, 20_000);
  assert.equal(await pending(), 0, "20,000 at once outgrow the threshold: saved whole");
  await add(20_000, 20_100);
  await partition.close();
  assert.equal(await pending(), 100 * (8 + 4 * DIMS), "a few pending vectors stay pending");

  partition = await VectorPartition.open(tmp.path, "code.p", DIMS);
  await add(20_100, 21_200);
  assert.ok(await pending() > 0, "1,100 pending of 21,200 are under a quarter");
  await partition.close();
  assert.equal(await pending(), 0, "1,100 pending are enough to save whole at close");
  partition = await VectorPartition.open(tmp.path, "code.p", DIMS);
  assert.equal(partition.size, 21_200);
  assert.ok(partition.holds("c21199", "h21199") && partition.holds("c20050", "h20050"));
});
