import assert from "node:assert/strict";
import { join } from "node:path";
import { BlobStore } from "../../events/blobs.ts";
import { MemoryLog } from "../../events/memory_log.ts";
import { MemoryCheckpoints } from "../../projections/checkpoints.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { VectorsProjection } from "../../projections/vectors/vectors_projection.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";
import { remembered, tempDir } from "../helpers.ts";
import { fileIndexed as indexedChunks, turnIngested } from "./text_events.ts";

/** A `file.indexed` event of `project`'s `path` with one chunk a text. */
function fileIndexed(blobs: BlobStore, project: string, path: string, texts: string[]) {
  return indexedChunks(
    blobs,
    project,
    path,
    texts.map((text, i) => ({ id: `${project}:${path}:${i}`, name: `f${i}`, text })),
  );
}

async function openVectors(dir: string, log: MemoryLog, embedder: FakeEmbedder) {
  const blobs = new BlobStore(join(dir, "blobs"));
  const vectors = await VectorsProjection.open(
    join(dir, "vectors"),
    embedder,
    blobs,
    log,
  );
  return { blobs, vectors };
}

Deno.test("the vectors never embed what a later event in the log undoes, and end as if they had", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  const embedder = new FakeEmbedder();
  const { blobs, vectors } = await openVectors(tmp.path, log, embedder);
  await log.append([
    await fileIndexed(blobs, "gone", "a.py", ["def gone_a(): pass", "def gone_b(): pass"]),
    await fileIndexed(blobs, "kept", "old.py", ["def replaced(): pass"]),
    await fileIndexed(blobs, "kept", "removed.py", ["def removed(): pass"]),
    remembered("wrong", "A memory forgotten before its vector was computed."),
    remembered("right", "A memory that stays."),
    await turnIngested(blobs, "s1", 3, "a provisional turn, retracted later"),
    { type: "project.deleted", v: 1, data: { project: "gone" } },
    await fileIndexed(blobs, "kept", "old.py", ["def replacement(): pass"]),
    { type: "file.removed", v: 1, data: { project: "kept", path: "removed.py" } },
    { type: "memory.forgotten", v: 1, data: { id: "wrong" } },
    { type: "turn.retracted", v: 1, data: { session: "s1", line: 3 } },
  ]);
  assert.deepEqual(
    (await vectors.pending(0)).sort((a, b) => a.source.localeCompare(b.source)),
    [
      { source: "code", project: "kept", documents: 1 },
      { source: "memory", project: null, documents: 1 },
    ],
    "only what the log still holds at its head waits",
  );
  const runner = await ProjectionRunner.open(log, [vectors], new MemoryCheckpoints());
  try {
    await runner.settled();
    assert.deepEqual(embedder.embedded.sort(), [
      "A memory that stays.",
      "old.py\ndef replacement(): pass",
    ]);
    assert.deepEqual(await vectors.pending(log.head), []);
    const readAhead = await vectors.digest();

    const plain = await VectorsProjection.open(
      join(tmp.path, "plain"),
      new FakeEmbedder(),
      blobs,
    );
    for await (const event of log.read()) await plain.apply([event]);
    assert.equal(readAhead, await plain.digest(), "the same vectors as applying every event");
    await plain.close();
  } finally {
    await runner.close();
  }
});

Deno.test("what waits for a vector is counted per source and project, and drops as vectors are computed", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  const embedder = new FakeEmbedder();
  const { blobs, vectors } = await openVectors(tmp.path, log, embedder);
  await log.append([
    await fileIndexed(blobs, "web", "a.py", ["def a(): pass", "def b(): pass", "def c(): pass"]),
    await fileIndexed(blobs, "api", "b.py", ["def d(): pass"]),
    remembered("m1"),
  ]);
  const waiting = await vectors.pending(0);
  assert.deepEqual(
    waiting.sort((a, b) => `${a.source}${a.project}`.localeCompare(`${b.source}${b.project}`)),
    [
      { source: "code", project: "api", documents: 1 },
      { source: "code", project: "web", documents: 3 },
      { source: "memory", project: null, documents: 1 },
    ],
  );
  assert.deepEqual(await vectors.pending(2), [{ source: "memory", project: null, documents: 1 }]);
  assert.equal(vectors.rate(), undefined, "no rate before a batch is embedded");
  const runner = await ProjectionRunner.open(log, [vectors], new MemoryCheckpoints());
  try {
    await runner.settled();
    assert.deepEqual(await vectors.pending(log.head), []);
    assert.equal(vectors.rate(), undefined, "4 texts are too few to tell a rate");
    await log.append([remembered("m2")]);
    assert.deepEqual(await vectors.pending(log.head - 1), [
      { source: "memory", project: null, documents: 1 },
    ]);
    await runner.rebuild("vectors");
    assert.deepEqual(await vectors.pending(log.head), [], "a rebuild reads the log again");
  } finally {
    await runner.close();
  }
});

Deno.test("the background lane waits while a large write holds it, and goes on after", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  const embedder = new FakeEmbedder();
  const { vectors } = await openVectors(tmp.path, log, embedder);
  const runner = await ProjectionRunner.open(log, [vectors], new MemoryCheckpoints());
  try {
    const written = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    const held = runner.withBackgroundPaused(async () => {
      await log.append([remembered("m1", "written while the lane waits")]);
      await runner.catchUp();
      written.resolve();
      await release.promise;
    });
    await written.promise;
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(embedder.embedded, [], "nothing embedded while held");
    release.resolve();
    await held;
    await runner.settled();
    assert.deepEqual(embedder.embedded, ["written while the lane waits"]);
  } finally {
    await runner.close();
  }
});

Deno.test("what waits is kept current from the events appended, without reading the log again", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  let reads = 0;
  const counted = {
    read: (from: number) => (reads++, log.read(from)),
    get head() {
      return log.head;
    },
  };
  const vectors = await VectorsProjection.open(
    join(tmp.path, "vectors"),
    new FakeEmbedder(),
    new BlobStore(join(tmp.path, "blobs")),
    counted,
  );
  try {
    await log.append([remembered("m1")]);
    assert.equal((await vectors.pending(0))[0]?.documents, 1);
    assert.equal(reads, 1, "the first look reads the log");
    assert.equal((await vectors.pending(0))[0]?.documents, 1);
    assert.equal(reads, 1, "nothing new: no read");
    vectors.observe(await log.append([remembered("m2"), remembered("m3")]));
    assert.equal((await vectors.pending(0))[0]?.documents, 3);
    assert.equal(reads, 1, "what was appended was seen as it was appended");
  } finally {
    await vectors.close();
  }
});

Deno.test("a file's chunks past its embedded_chunks get no vector and are not counted as waiting", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  const embedder = new FakeEmbedder();
  const { blobs, vectors } = await openVectors(tmp.path, log, embedder);
  const table = await fileIndexed(blobs, "web", "colors.json", [
    '{"red": 1,',
    '"blue": 2,',
    '"x": 3}',
  ]);
  await log.append([
    { ...table, data: { ...table.data, embedded_chunks: 1 } } as typeof table,
    await fileIndexed(blobs, "web", "a.py", ["def a(): pass", "def b(): pass"]),
  ]);
  assert.deepEqual(await vectors.pending(0), [{ source: "code", project: "web", documents: 3 }]);
  const work: number[] = [];
  for await (const event of log.read(1)) work.push(vectors.workOf(event));
  assert.deepEqual(work, [1, 2], "the runner's batches weigh an event by its texts to embed");
  const runner = await ProjectionRunner.open(log, [vectors], new MemoryCheckpoints());
  try {
    await runner.settled();
    assert.deepEqual(embedder.embedded.sort(), [
      "a.py\ndef a(): pass",
      "a.py\ndef b(): pass",
      'colors.json\n{"red": 1,',
    ]);
    assert.deepEqual(vectors.counts(), { memory: 0, code: 3, turn: 0, entity: 0 });
    const [query] = await embedder.embedDocuments(['colors.json\n{"red": 1,']);
    const [file] = vectors.searchFiles(query!, { project: "web", limit: 1 });
    assert.equal(file?.path, "colors.json");
    assert.deepEqual(file?.chunks, ["web:colors.json:0"]);
    assert.ok(file!.distance < 1e-6, "the file's vector is its first chunk's, pooled alone");
  } finally {
    await runner.close();
  }
});

Deno.test("what waits is counted apart for the files the caller picks out, each project on its own", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  const { blobs, vectors } = await openVectors(tmp.path, log, new FakeEmbedder());
  await log.append([
    await fileIndexed(blobs, "web", "app.py", ["def a(): pass", "def b(): pass"]),
    await fileIndexed(blobs, "web", "tests/test_app.py", ["def test_a(): pass"]),
    await fileIndexed(blobs, "api", "tests/test_api.py", ["def test_b(): pass"]),
    remembered("m1"),
  ]);
  const byName = (a: { project: string | null }, b: { project: string | null }) =>
    `${a.project}`.localeCompare(`${b.project}`);
  const tests = (path: string) => path.startsWith("tests/");
  assert.deepEqual((await vectors.pending(0, tests)).sort(byName), [
    { source: "code", project: "api", documents: 1, lowered: true },
    { source: "memory", project: null, documents: 1 },
    { source: "code", project: "web", documents: 2 },
    { source: "code", project: "web", documents: 1, lowered: true },
  ]);
  assert.deepEqual(
    (await vectors.pending(0)).filter((p) => p.project === "web"),
    [{ source: "code", project: "web", documents: 3 }],
    "without the caller's pick, a project's chunks are one count",
  );
  await vectors.close();
});

Deno.test("memories behind a backlog of code get their vectors with the next batch, each text embedded once", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  const embedder = new FakeEmbedder();
  const { blobs, vectors } = await openVectors(tmp.path, log, embedder);
  const files = [];
  for (let i = 0; i < 40; i++) {
    files.push(await fileIndexed(blobs, "big", `m${i}.py`, [`def f${i}(): pass`]));
  }
  const events = await log.append([
    ...files,
    remembered("kept", "first words"),
    remembered("dropped", "forgotten before its vector"),
    { type: "memory.revised", v: 1, data: { id: "kept", content: "revised words" } },
    { type: "memory.forgotten", v: 1, data: { id: "dropped" } },
    ...Array.from({ length: 40 }, (_, i) => remembered(`m${i}`, `memory ${i}`)),
  ]);
  await vectors.apply(events.slice(0, 16));
  assert.deepEqual(
    embedder.embedded.filter((text) => !text.endsWith("pass")),
    ["revised words", ...Array.from({ length: 30 }, (_, i) => `memory ${i}`)],
    "the first batch takes 32 memory events ahead, each memory's latest text (a memory " +
      "forgotten before its vector has nothing left to do)",
  );
  assert.equal(vectors.counts().memory, 31);
  assert.deepEqual(await vectors.pending(16), [
    { source: "code", project: "big", documents: 24 },
    { source: "memory", project: null, documents: 10 },
  ], "what was taken ahead no longer waits");

  const checkpoints = new MemoryCheckpoints();
  await checkpoints.write("vectors", { seq: 16, version: vectors.version });
  const runner = await ProjectionRunner.open(log, [vectors], checkpoints);
  try {
    await runner.settled();
    const texts = embedder.embedded;
    assert.equal(texts.length, new Set(texts).size, "no text embedded twice");
    assert.ok(!texts.includes("first words") && !texts.includes("forgotten before its vector"));
    assert.deepEqual(vectors.counts(), { memory: 41, code: 40, turn: 0, entity: 0 });
    const built = await vectors.digest();
    await runner.rebuild("vectors");
    assert.equal(await vectors.digest(), built, "the same vectors as a replay in the log's order");
  } finally {
    await runner.close();
  }
});

Deno.test("memories taken ahead before a restart are neither counted as waiting nor embedded again after it", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  const blobs = new BlobStore(join(tmp.path, "blobs"));
  const files = [];
  for (let i = 0; i < 20; i++) {
    files.push(await fileIndexed(blobs, "big", `m${i}.py`, [`def f${i}(): pass`]));
  }
  const events = await log.append([
    ...files,
    remembered("kept", "first words"),
    { type: "memory.revised", v: 1, data: { id: "kept", content: "revised words" } },
  ]);
  const before = await VectorsProjection.open(
    join(tmp.path, "vectors"),
    new FakeEmbedder(),
    blobs,
    log,
  );
  await before.apply(events.slice(0, 4));
  assert.equal(before.counts().memory, 1, "taken ahead");
  await before.close();

  const embedder = new FakeEmbedder();
  const after = await VectorsProjection.open(join(tmp.path, "vectors"), embedder, blobs, log);
  try {
    assert.deepEqual(await after.pending(4), [{ source: "code", project: "big", documents: 16 }]);
    await after.apply(events.slice(4));
    assert.ok(
      embedder.embedded.every((text) => text.endsWith("pass")),
      embedder.embedded.join("\n"),
    );
    assert.deepEqual(after.counts(), { memory: 1, code: 20, turn: 0, entity: 0 });
  } finally {
    await after.close();
  }
});
