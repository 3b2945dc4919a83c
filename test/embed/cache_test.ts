import assert from "node:assert/strict";
import { join } from "node:path";
import {
  CachedEmbedder,
  embeddingCacheDir,
  machineEmbeddingCacheDir,
} from "../../src/embed/cache.ts";
import { tempDir } from "../helpers.ts";
import { embedderContract, withCleanup } from "./embedder_contract.ts";
import { FakeEmbedder, hashVector } from "./fake_embedder.ts";

embedderContract("CachedEmbedder", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-test-" });
  const cached = await CachedEmbedder.open(new FakeEmbedder(), dir);
  return withCleanup(cached, () => Deno.remove(dir, { recursive: true }));
});

Deno.test("CachedEmbedder.embedDocuments() computes only the misses and counts hits", async () => {
  await using dir = await tempDir();
  const fake = new FakeEmbedder();
  const cached = await CachedEmbedder.open(fake, dir.path);
  const first = await cached.embedDocuments(["a", "b", "a"]);
  assert.deepEqual(fake.embedded, ["a", "b"]);
  assert.deepEqual(cached.stats, { hits: 0, misses: 3, machineHits: 0, damagedBytes: 0 });
  const second = await cached.embedDocuments(["b", "c", "a"]);
  assert.deepEqual(fake.embedded, ["a", "b", "c"]);
  assert.deepEqual(cached.stats, { hits: 2, misses: 4, machineHits: 0, damagedBytes: 0 });
  assert.deepEqual(second[0], first[1]);
  assert.deepEqual(second[2], first[0]);
  await cached.close();
  assert.ok(fake.closed);
});

Deno.test("CachedEmbedder.embedQuery() embeds a recent query once, and forgets the least recent", async () => {
  await using dir = await tempDir();
  const fake = new FakeEmbedder();
  const cached = await CachedEmbedder.open(fake, dir.path);
  const first = await cached.embedQuery("q0");
  first.fill(0);
  assert.notDeepEqual(await cached.embedQuery("q0"), first, "a caller's changes stay its own");
  for (let i = 1; i <= 64; i++) await cached.embedQuery(`q${i}`);
  await cached.embedQuery("q1");
  assert.equal(fake.queries.filter((query) => query === "q0").length, 1);
  assert.equal(fake.queries.filter((query) => query === "q1").length, 1);
  await cached.embedQuery("q65");
  await cached.embedQuery("q0");
  await cached.embedQuery("q1");
  assert.equal(fake.queries.filter((query) => query === "q0").length, 2, "q0 was the least recent");
  assert.equal(fake.queries.filter((query) => query === "q1").length, 1, "q1 was asked again");
  await cached.close();
});

Deno.test("CachedEmbedder.open() finds the vectors written before a reopen", async () => {
  await using dir = await tempDir();
  const before = await CachedEmbedder.open(new FakeEmbedder(), dir.path);
  const vectors = await before.embedDocuments(["one", "two"]);
  await before.close();
  const fake = new FakeEmbedder();
  const after = await CachedEmbedder.open(fake, dir.path);
  assert.deepEqual(await after.embedDocuments(["two", "one"]), [vectors[1], vectors[0]]);
  assert.deepEqual(fake.embedded, []);
  assert.equal(after.stats.hits, 2);
  await after.close();
});

Deno.test("CachedEmbedder skips a torn last record, keeps the ones before it and finds those appended after it", async () => {
  await using dir = await tempDir();
  const before = await CachedEmbedder.open(new FakeEmbedder(), dir.path);
  await before.embedDocuments(["kept"]);
  await before.embedDocuments(["torn"]);
  await before.close();
  const file = join(embeddingCacheDir(dir.path, "fake-model"), "vectors.bin");
  const size = (await Deno.stat(file)).size;
  await Deno.truncate(file, size - 5);
  const fake = new FakeEmbedder();
  const after = await CachedEmbedder.open(fake, dir.path);
  await after.embedDocuments(["kept", "torn"]);
  assert.deepEqual(fake.embedded, ["torn"]);
  assert.equal((await Deno.stat(file)).size, size - 5 + size / 2, "nothing cut, one appended");
  await after.close();
  const third = await CachedEmbedder.open(new FakeEmbedder(), dir.path);
  await third.embedDocuments(["kept", "torn"]);
  assert.deepEqual(third.stats, {
    hits: 2,
    misses: 0,
    machineHits: 0,
    damagedBytes: size / 2 - 5,
  });
  await third.close();
});

Deno.test("CachedEmbedder skips a damaged record past its first read and keeps every other one", async () => {
  await using dir = await tempDir();
  const texts = Array.from({ length: 6000 }, (_, i) => `chunk ${i}`);
  const before = await CachedEmbedder.open(new FakeEmbedder(384), dir.path);
  await before.embedDocuments(texts);
  await before.close();
  const file = join(embeddingCacheDir(dir.path, "fake-model"), "vectors.bin");
  const recordBytes = 44 + 384 * 4;
  const damaged = 5500;
  const bytes = await Deno.readFile(file);
  bytes[damaged * recordBytes + 100] = bytes[damaged * recordBytes + 100]! ^ 0xff;
  await Deno.writeFile(file, bytes);
  const fake = new FakeEmbedder(384);
  const after = await CachedEmbedder.open(fake, dir.path);
  const vectors = await after.embedDocuments(texts);
  assert.equal(after.stats.damagedBytes, recordBytes);
  assert.deepEqual(fake.embedded, [texts[damaged]]);
  assert.deepEqual(vectors, texts.map((text) => hashVector(text, 384)));
  await after.close();
  const third = await CachedEmbedder.open(new FakeEmbedder(384), dir.path);
  assert.deepEqual(await third.embedDocuments(texts), vectors);
  assert.equal(third.stats.misses, 0);
  await third.close();
});

Deno.test("CachedEmbedder finds what another process appended after its scan, past a record torn in between", async () => {
  await using dir = await tempDir();
  const reader = await CachedEmbedder.open(new FakeEmbedder(), dir.path);
  await reader.embedDocuments(["first"]);
  const file = join(embeddingCacheDir(dir.path, "fake-model"), "vectors.bin");
  const record = (await Deno.stat(file)).size;
  const writer = await CachedEmbedder.open(new FakeEmbedder(), dir.path);
  await writer.embedDocuments(["torn"]);
  await Deno.truncate(file, 2 * record - 7);
  await writer.embedDocuments(["after the tear"]);
  const fake = new FakeEmbedder();
  const late = await CachedEmbedder.open(fake, dir.path);
  assert.deepEqual(await late.embedDocuments(["first", "after the tear"]), [
    hashVector("first", 8),
    hashVector("after the tear", 8),
  ]);
  assert.deepEqual(fake.embedded, []);
  assert.deepEqual(await reader.embedDocuments(["after the tear"]), [
    hashVector("after the tear", 8),
  ]);
  assert.equal(reader.stats.hits, 1, "the reader scanned the new records, not the model");
  await Promise.all([reader.close(), writer.close(), late.close()]);
});

Deno.test("CachedEmbedder instances sharing one cache file append after each other and never mix up vectors", async () => {
  await using dir = await tempDir();
  const first = await CachedEmbedder.open(new FakeEmbedder(), dir.path);
  const second = await CachedEmbedder.open(new FakeEmbedder(), dir.path);
  await first.embedDocuments(["a", "b"]);
  await second.embedDocuments(["c"]);
  await first.embedDocuments(["d"]);
  const texts = ["c", "a", "d", "b"];
  const expected = texts.map((text) => hashVector(text, 8));
  assert.deepEqual(await second.embedDocuments(texts), expected);
  assert.deepEqual(await first.embedDocuments(texts), expected);
  await first.close();
  await second.close();
  const third = await CachedEmbedder.open(new FakeEmbedder(), dir.path);
  assert.deepEqual(await third.embedDocuments(texts), expected);
  assert.equal(third.stats.misses, 0);
  await third.close();
});

Deno.test("CachedEmbedder takes a record damaged after its scan for a miss, not a vector", async () => {
  await using dir = await tempDir();
  const fake = new FakeEmbedder();
  const cached = await CachedEmbedder.open(fake, dir.path);
  await cached.embedDocuments(["kept", "damaged"]);
  const file = join(embeddingCacheDir(dir.path, "fake-model"), "vectors.bin");
  const bytes = await Deno.readFile(file);
  bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0xff;
  await Deno.writeFile(file, bytes);
  assert.deepEqual(
    await cached.embedDocuments(["damaged", "kept"]),
    [hashVector("damaged", 8), hashVector("kept", 8)],
  );
  assert.deepEqual(fake.embedded, ["kept", "damaged", "damaged"]);
  await cached.close();
});

Deno.test("CachedEmbedder never reads its cache for queries alone", async () => {
  await using dir = await tempDir();
  const before = await CachedEmbedder.open(new FakeEmbedder(), dir.path);
  await before.embedDocuments(["kept"]);
  await before.close();
  const file = join(embeddingCacheDir(dir.path, "fake-model"), "vectors.bin");
  const torn = (await Deno.stat(file)).size - 5;
  await Deno.truncate(file, torn);
  const querying = await CachedEmbedder.open(new FakeEmbedder(), dir.path);
  await querying.embedQuery("what is kept?");
  await querying.close();
  assert.equal((await Deno.stat(file)).size, torn);
  assert.equal(querying.stats.damagedBytes, 0, "no scan");
});

Deno.test("CachedEmbedder reads back vectors spread over several scan reads, in any order", async () => {
  await using dir = await tempDir();
  const texts = Array.from({ length: 6000 }, (_, i) => `chunk ${i}`);
  const before = await CachedEmbedder.open(new FakeEmbedder(384), dir.path);
  await before.embedDocuments(texts.slice(0, 3000));
  await before.embedDocuments(texts.slice(3000));
  await before.close();
  const file = join(embeddingCacheDir(dir.path, "fake-model"), "vectors.bin");
  assert.ok((await Deno.stat(file)).size > 8 * 1024 * 1024, "more than one 8 MiB scan read");
  const fake = new FakeEmbedder(384);
  const after = await CachedEmbedder.open(fake, dir.path);
  const asked = [...texts.filter((_, i) => i % 7 === 3).reverse(), "new text", texts[5]!];
  const vectors = await after.embedDocuments(asked);
  assert.deepEqual(fake.embedded, ["new text"]);
  assert.deepEqual(vectors, asked.map((text) => hashVector(text, 384)));
  assert.equal(after.stats.hits, asked.length - 1);
  await after.close();
});

Deno.test("CachedEmbedder keeps one cache per model id", async () => {
  await using dir = await tempDir();
  const a = await CachedEmbedder.open(new FakeEmbedder(), dir.path);
  await a.embedDocuments(["x"]);
  await a.close();
  const other = new FakeEmbedder(8);
  Object.defineProperty(other, "id", { value: "other/model:v2" });
  const b = await CachedEmbedder.open(other, dir.path);
  await b.embedDocuments(["x"]);
  assert.equal(b.stats.misses, 1);
  await b.close();
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(join(dir.path, "cache", "embeddings")))).map((e) => e.name)
      .sort(),
    ["fake-model", "other_model_v2"],
  );
});

Deno.test("CachedEmbedder reads a text another store embedded from the user's shared cache, and keeps it in the store's own", async () => {
  await using dir = await tempDir();
  const machine = join(dir.path, "machine");
  const first = await CachedEmbedder.open(new FakeEmbedder(), join(dir.path, "a"), machine);
  await first.embedDocuments(["a", "b"]);
  await first.close();
  const fake = new FakeEmbedder();
  const second = await CachedEmbedder.open(fake, join(dir.path, "b"), machine);
  const texts = ["b", "c", "a", "b"];
  assert.deepEqual(await second.embedDocuments(texts), texts.map((text) => hashVector(text, 8)));
  assert.deepEqual(fake.embedded, ["c"]);
  assert.deepEqual(second.stats, { hits: 3, misses: 1, machineHits: 3, damagedBytes: 0 });
  await second.close();
  const alone = await CachedEmbedder.open(new FakeEmbedder(), join(dir.path, "b"));
  await alone.embedDocuments(texts);
  assert.equal(alone.stats.misses, 0, "the store's own cache holds what the shared one gave");
  await alone.close();
  const third = await CachedEmbedder.open(new FakeEmbedder(), join(dir.path, "c"), machine);
  await third.embedDocuments(texts);
  assert.equal(third.stats.machineHits, texts.length, "what the model computed was shared");
  await third.close();
});

Deno.test("the user's shared cache is readable by its owner alone", {
  ignore: Deno.build.os === "windows",
}, async () => {
  await using dir = await tempDir();
  const machine = join(dir.path, "user-cache");
  const cached = await CachedEmbedder.open(new FakeEmbedder(), join(dir.path, "store"), machine);
  await cached.embedDocuments(["private"]);
  await cached.close();
  const folder = machineEmbeddingCacheDir(machine, "fake-model");
  assert.equal((await Deno.stat(machine)).mode! & 0o777, 0o700);
  assert.equal((await Deno.stat(join(folder, "vectors.bin"))).mode! & 0o777, 0o600);
});
