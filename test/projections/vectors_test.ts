import assert from "node:assert/strict";
import { join } from "node:path";
import { BlobStore } from "../../events/blobs.ts";
import { MemoryLog } from "../../events/memory_log.ts";
import { MemoryCheckpoints } from "../../projections/checkpoints.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import {
  ModelMismatchError,
  VectorsProjection,
} from "../../projections/vectors/vectors_projection.ts";
import { LazyEmbedder } from "../../src/embed/lazy_embedder.ts";
import { storeEmbedder } from "../../src/embed/load.ts";
import type { NewEvent } from "../../events/schema.ts";
import type { Embedder } from "../../text/embedder.ts";
import { collect, remembered, tempDir } from "../helpers.ts";
import { fileIndexed } from "./text_events.ts";

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
  const vectors = await VectorsProjection.open(
    join(tmp.path, "vectors"),
    embedder,
    new BlobStore(join(tmp.path, "blobs")),
  );
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
    assert.deepEqual(vectors.counts(), { memory: 3, code: 0, turn: 0, entity: 0 });
  } finally {
    await runner.close();
  }
});

Deno.test("VectorsProjection.open() refuses vectors built by another model, naming both", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "vectors");
  const blobs = new BlobStore(join(tmp.path, "blobs"));
  const first = await VectorsProjection.open(
    dir,
    new LazyEmbedder("model-a", 384, () => Promise.reject()),
    blobs,
  );
  await first.close();
  await assert.rejects(
    () =>
      VectorsProjection.open(dir, new LazyEmbedder("model-b", 384, () => Promise.reject()), blobs),
    (error: Error) =>
      error instanceof ModelMismatchError &&
      /built with model-a, not model-b/.test(error.message) &&
      /cairn reembed. to rebuild them with model-b/.test(error.message),
  );
});

Deno.test("closing while the model is still loading gives up the waiting batch, which is embedded at the next open", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "vectors");
  const blobs = new BlobStore(join(tmp.path, "blobs"));
  const log = new MemoryLog();
  await log.append([remembered("pool", "Database connections are pooled.", "api")]);
  const checkpoints = new MemoryCheckpoints();
  const model = await storeEmbedder(tmp.path);
  let arrive = () => {};
  const loading = new LazyEmbedder(
    model.id,
    model.dims,
    () => new Promise((resolve) => (arrive = () => resolve(model))),
  );
  const first = await ProjectionRunner.open(
    log,
    [await VectorsProjection.open(dir, loading, blobs)],
    checkpoints,
  );
  await first.close();
  assert.equal((await checkpoints.read("vectors"))?.seq, 0, "nothing was embedded");
  arrive();

  const vectors = await VectorsProjection.open(dir, await storeEmbedder(tmp.path), blobs);
  const second = await ProjectionRunner.open(log, [vectors], checkpoints);
  try {
    await second.settled();
    assert.deepEqual(vectors.counts(), { memory: 1, code: 0, turn: 0, entity: 0 });
  } finally {
    await second.close();
  }
});

Deno.test("VectorsProjection keeps a file's chunk vectors in step with re-indexing and removal, and embeds turns", async () => {
  await using tmp = await tempDir();
  const blobs = new BlobStore(join(tmp.path, "blobs"));
  const embedder = await storeEmbedder(tmp.path);
  const vectors = await VectorsProjection.open(join(tmp.path, "vectors"), embedder, blobs);
  const log = new MemoryLog();
  const runner = await ProjectionRunner.open(log, [vectors], new MemoryCheckpoints());
  const indexed = async (chunks: Array<[string, string]>): Promise<NewEvent> => {
    const hashes = await blobs.putMany(chunks.map(([, text]) => text));
    return {
      type: "file.indexed",
      v: 1,
      data: {
        project: "app",
        path: "src/db.py",
        hash: "h",
        size: 1,
        mtime_ms: 0,
        language: "python",
        references: [],
        chunks: chunks.map(([id], i) => ({
          id,
          start_line: 1,
          end_line: 2,
          kind: "function",
          name: id,
          text: hashes[i]!,
        })),
      },
    };
  };
  const near = async (query: string, source: "code" | "turn") =>
    vectors.search(source, await embedder.embedQuery(query), { project: "app", limit: 5 }).map((
      hit,
    ) => hit.id);
  try {
    await log.append([
      await indexed([
        ["connect", "def connect(url):\n    return psycopg.connect(url, pool_size=20)"],
        ["bake", "def bake(cake):\n    oven.heat(180)\n    cake.put_in(oven)"],
      ]),
    ]);
    await runner.settled();
    assert.equal((await near("open a database connection", "code"))[0], "code:connect");
    await log.append([
      await indexed([["connect", "def connect(url):\n    return psycopg.connect(url)"]]),
    ]);
    await runner.settled();
    assert.deepEqual(await near("bake a cake in the oven", "code"), ["code:connect"]);
    const turnText = await blobs.put(
      "User: why is CI red?\nAssistant: the flaky integration test timed out.",
    );
    await log.append([
      { type: "file.removed", v: 1, data: { project: "app", path: "src/db.py" } },
      {
        type: "turn.ingested",
        v: 1,
        data: {
          agent: "claude",
          session: "s1",
          line: 0,
          project: "app",
          started_at: "2026-01-01T00:00:00Z",
          provisional: false,
          text: turnText,
          mentions: [],
        },
      },
    ]);
    await runner.settled();
    assert.deepEqual(await near("database", "code"), []);
    assert.deepEqual(await near("flaky test in CI", "turn"), ["turn:s1:0"]);
    await log.append([{ type: "turn.retracted", v: 1, data: { session: "s1", line: 0 } }]);
    await runner.settled();
    assert.deepEqual(vectors.counts(), { memory: 0, code: 0, turn: 0, entity: 0 });
  } finally {
    await runner.close();
  }
});

Deno.test("VectorsProjection embeds a long turn window by window, answers it once, and drops what a batch removes", async () => {
  await using tmp = await tempDir();
  const blobs = new BlobStore(join(tmp.path, "blobs"));
  const embedder = await storeEmbedder(tmp.path);
  const vectors = await VectorsProjection.open(join(tmp.path, "vectors"), embedder, blobs);
  const log = new MemoryLog();
  const runner = await ProjectionRunner.open(log, [vectors], new MemoryCheckpoints());
  const filler = Array.from(
    { length: 40 },
    (_, i) =>
      `→ Read src/module_${i}.py\nAssistant: module ${i} only formats dates for the report.`,
  );
  const text = [
    "User: tidy up the reporting package",
    ...filler,
    "Assistant: the nightly backup job failed because the S3 bucket credentials expired.",
  ].join("\n");
  const turn = (line: number, hash: string): NewEvent => ({
    type: "turn.ingested",
    v: 1,
    data: {
      agent: "claude",
      session: "s1",
      line,
      project: "app",
      started_at: "2026-01-01T00:00:00Z",
      provisional: false,
      text: hash,
      mentions: [],
    },
  });
  try {
    const [hash] = await blobs.putMany([text]);
    await log.append([turn(0, hash!)]);
    await runner.settled();
    const windows = vectors.counts().turn;
    assert.ok(windows > 1, `a ${text.length}-character turn has several vectors (${windows})`);
    const query = await embedder.embedQuery("why did the nightly backup fail?");
    assert.deepEqual(
      vectors.search("turn", query, { project: "app", limit: 5 }),
      vectors.search("turn", query, { project: "app", limit: 5 }).slice(0, 1),
      "the turn comes back once",
    );
    assert.equal(vectors.search("turn", query, { project: "app", limit: 5 })[0]?.id, "turn:s1:0");

    const [code] = await blobs.putMany(["def backup():\n    s3.upload(dump())"]);
    await log.append([
      { type: "turn.retracted", v: 1, data: { session: "s1", line: 0 } },
      turn(7, hash!),
      { type: "turn.retracted", v: 1, data: { session: "s1", line: 7 } },
      {
        type: "file.indexed",
        v: 1,
        data: {
          project: "app",
          path: "src/backup.py",
          hash: "h",
          size: 1,
          mtime_ms: 0,
          language: "python",
          references: [],
          chunks: [{
            id: "backup",
            start_line: 1,
            end_line: 2,
            kind: "function",
            name: "backup",
            text: code!,
          }],
        },
      },
      { type: "file.removed", v: 1, data: { project: "app", path: "src/backup.py" } },
    ]);
    await runner.settled();
    assert.deepEqual(
      vectors.counts(),
      { memory: 0, code: 0, turn: 0, entity: 0 },
      "what one batch adds and removes leaves nothing",
    );
  } finally {
    await runner.close();
  }
});

/**
 * An embedder that gives each of a few words its own axis (a text: the sum of
 * its words' axes), so a file's pooled vector and its distance are known exactly;
 * the texts it embeds are pushed to `embedded`.
 */
function axesEmbedder(words: readonly string[], embedded: string[] = []): Embedder {
  const embed = (text: string) => {
    const vector = Float32Array.from(words, (word) => text.includes(word) ? 1 : 0);
    const norm = Math.hypot(...vector) || 1;
    return vector.map((x) => x / norm);
  };
  return {
    id: "axes",
    dims: words.length,
    embedDocuments: (texts) => {
      embedded.push(...texts);
      return Promise.resolve(texts.map(embed));
    },
    embedQuery: (text) => Promise.resolve(embed(text)),
    close: () => Promise.resolve(),
  };
}

Deno.test("VectorsProjection pools each file's chunk vectors into one, in step with re-indexing, removal and project deletion", async () => {
  await using tmp = await tempDir();
  const blobs = new BlobStore(join(tmp.path, "blobs"));
  const embedded: string[] = [];
  const embedder = axesEmbedder(["connect", "retry", "bake", "frost"], embedded);
  const vectors = await VectorsProjection.open(join(tmp.path, "vectors"), embedder, blobs);
  const log = new MemoryLog();
  const runner = await ProjectionRunner.open(log, [vectors], new MemoryCheckpoints());
  const indexed = (project: string, path: string, texts: string[]) =>
    fileIndexed(
      blobs,
      project,
      path,
      texts.map((text, i) => ({ id: `${project}:${path}:${i + 1}-${i + 1}`, name: `f${i}`, text })),
    );
  const files = async (query: string, project: string | null) =>
    (await vectors.searchFiles(await embedder.embedQuery(query), { project, limit: 5 }))
      .map((file) => ({ ...file, distance: Math.round(file.distance * 100) / 100 }));
  // Two orthogonal chunks pooled: a question along one of them is 1 - 1/√2 away.
  const half = Math.round((1 - Math.SQRT1_2) * 100) / 100;
  try {
    await log.append([
      await indexed("app", "db.py", ["def connect()", "def retry()"]),
      await indexed("app", "bakery.py", ["def bake()"]),
      await indexed("web", "db.py", ["def connect()"]),
    ]);
    await runner.settled();
    assert.deepEqual(await files("connect", "app"), [
      { path: "db.py", distance: half, chunks: ["app:db.py:1-1", "app:db.py:2-2"] },
      { path: "bakery.py", distance: 1, chunks: ["app:bakery.py:1-1"] },
    ]);
    assert.deepEqual(
      vectors.counts(),
      { memory: 0, code: 4, turn: 0, entity: 0 },
      "files are not documents",
    );

    // One chunk changes: the unchanged one still counts in the file's vector.
    await log.append([await indexed("app", "db.py", ["def frost()", "def retry()"])]);
    await runner.settled();
    assert.deepEqual((await files("retry", "app"))[0], {
      path: "db.py",
      distance: half,
      chunks: ["app:db.py:1-1", "app:db.py:2-2"],
    });
    assert.deepEqual((await files("frost", "app")).map((file) => file.distance), [half, 1]);

    // Indexed again unchanged: nothing is embedded, not even to pool.
    embedded.length = 0;
    await log.append([await indexed("app", "db.py", ["def frost()", "def retry()"])]);
    await runner.settled();
    assert.deepEqual(embedded, []);

    const built = await vectors.digest();
    await runner.rebuild("vectors");
    assert.equal(await vectors.digest(), built, "replay from nothing gives the same file vectors");

    await log.append([
      { type: "file.removed", v: 1, data: { project: "app", path: "db.py" } },
      { type: "project.deleted", v: 1, data: { project: "web" } },
    ]);
    await runner.settled();
    assert.deepEqual((await files("connect", null)).map((file) => file.path), ["bakery.py"]);
  } finally {
    await runner.close();
  }
});
