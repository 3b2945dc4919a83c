import assert from "node:assert/strict";
import { join } from "node:path";
import { ProjectionDamage } from "../../projections/damage.ts";
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

Deno.test("VectorPartition keeps ids and groups holding any character through its journal, and reads the first, tab-separated journal", async () => {
  await using tmp = await tempDir();
  const odd = ["a\nb", "c\td", "e\\f", 'g"h', "i\r\nj", "\u0000k", "🪨", "\ud800lone"];
  let partition = await VectorPartition.open(tmp.path, "code.p", DIMS);
  for (const [i, id] of odd.entries()) partition.upsert(id, `${i}a`, vector(i), `group ${id}`);
  await partition.save();
  partition = await VectorPartition.open(tmp.path, "code.p", DIMS);
  assert.equal(partition.size, odd.length);
  for (const [i, id] of odd.entries()) {
    assert.equal(partition.holds(id, `${i}a`), true, JSON.stringify(id));
    assert.deepEqual(partition.members(`group ${id}`), [id]);
  }

  await using old = await tempDir();
  await Deno.writeTextFile(
    join(old.path, "code.q.keys"),
    "+\t1\tsrc/a.py:1-3\tab12\tsrc/a.py\n-\t1\n",
  );
  partition = await VectorPartition.open(old.path, "code.q", DIMS);
  assert.equal(partition.size, 0, "the removal of the old format's line is read");
});

Deno.test("VectorPartition refuses a damaged journal or index as damage, never as an empty or wrong partition", async () => {
  await using tmp = await tempDir();
  const path = (kind: string) => join(tmp.path, `code.p.${kind}`);
  const partition = await VectorPartition.open(tmp.path, "code.p", DIMS);
  for (let i = 0; i < 5000; i++) partition.upsert(`c${i}`, `${i}a`, vector(i));
  await partition.save();
  assert.ok((await Deno.stat(path("usearch"))).size > 0);

  // The first format's line for an id with a newline: two lines, neither of them whole.
  await Deno.writeTextFile(path("keys"), "+\t9000\tline\nbreak.py\tab\tgroup\n", { append: true });
  await assert.rejects(VectorPartition.open(tmp.path, "code.p", DIMS), ProjectionDamage);

  await Deno.writeFile(path("usearch"), crypto.getRandomValues(new Uint8Array(4096)));
  await Deno.writeTextFile(path("keys"), "");
  await assert.rejects(VectorPartition.open(tmp.path, "code.p", DIMS), ProjectionDamage);
});
