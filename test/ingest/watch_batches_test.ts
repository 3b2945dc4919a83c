import assert from "node:assert/strict";
import { PendingPaths, watchBatches } from "../../src/ingest/watch_batches.ts";

const modified = (...paths: string[]): Deno.FsEvent => ({ kind: "modify", paths });

Deno.test("PendingPaths is due after a quiet spell, or at the latest maxWait after its first change", () => {
  const pending = new PendingPaths(500, 5_000);
  assert.equal(pending.dueIn(0), undefined, "nothing pending");
  pending.add(["/r/b.py"], 0);
  assert.equal(pending.dueIn(0), 500);
  pending.add(["/r/a.py", "/r/b.py"], 300);
  assert.equal(pending.dueIn(300), 500, "quiet counts from the last change");
  assert.equal(pending.dueIn(900), 0, "overdue is due now");
  for (let now = 400; now <= 4_800; now += 400) pending.add(["/r/app.log"], now);
  assert.equal(pending.dueIn(4_800), 200, "changes without pause wait 5 s at most");
  assert.deepEqual(pending.take(), ["/r/a.py", "/r/app.log", "/r/b.py"]);
  assert.equal(pending.dueIn(4_800), undefined, "taken");
  pending.add(["/r/c.py"], 6_000);
  assert.equal(pending.dueIn(6_000), 500, "the next batch waits from its own first change");
});

Deno.test("watchBatches() hands a burst over as one batch, and what comes after it as the next", async () => {
  const batches: string[][] = [];
  let firstRan: () => void = () => {};
  const ran = new Promise<void>((done) => (firstRan = done));
  // Events yielded back to back reach the batcher before any timer can fire.
  async function* checkout(): AsyncGenerator<Deno.FsEvent> {
    for (let i = 0; i < 500; i++) yield modified(`/r/f${String(i).padStart(3, "0")}.py`);
    yield modified("/r/.git/index", "/r/f000.py");
    await ran;
    yield modified("/r/after.py");
  }
  await watchBatches(checkout(), {
    quietMs: 10,
    maxWaitMs: 10_000,
    accept: (path) => !path.includes("/.git/"),
    run: (paths) => {
      batches.push(paths);
      firstRan();
      return Promise.resolve();
    },
    onError: (error) => assert.fail(error.message),
  });
  assert.equal(batches.length, 2);
  assert.equal(batches[0]!.length, 500, "distinct paths, the .git one left out");
  assert.deepEqual(batches[1], ["/r/after.py"]);
});

Deno.test("watchBatches() hands a batch over after maxWait while changes keep coming", async () => {
  const batches: string[][] = [];
  async function* noisy(): AsyncGenerator<Deno.FsEvent> {
    // Bounded: fails the test below if no batch comes within 400 changes.
    for (let i = 0; i < 400 && batches.length === 0; i++) {
      yield modified("/r/app.log");
      await new Promise((done) => setTimeout(done, 5));
    }
  }
  await watchBatches(noisy(), {
    quietMs: 60_000,
    maxWaitMs: 50,
    accept: () => true,
    run: (paths) => {
      batches.push(paths);
      return Promise.resolve();
    },
    onError: (error) => assert.fail(error.message),
  });
  assert.ok(batches.length >= 1);
  assert.deepEqual(batches[0], ["/r/app.log"]);
});

Deno.test("watchBatches() runs what is still pending when the watcher closes, and reports failures", async () => {
  const batches: string[][] = [];
  const errors: string[] = [];
  async function* closesAtOnce(): AsyncGenerator<Deno.FsEvent> {
    yield { kind: "create", paths: ["/r/x.py", "/r/y.py"] };
  }
  await watchBatches(closesAtOnce(), {
    quietMs: 10_000,
    maxWaitMs: 10_000,
    accept: () => true,
    run: (paths) => {
      batches.push(paths);
      return Promise.reject(new Error("disk full"));
    },
    onError: (error) => errors.push(error.message),
  });
  assert.deepEqual(batches, [["/r/x.py", "/r/y.py"]]);
  assert.deepEqual(errors, ["disk full"]);
});

Deno.test("watchBatches() rejects with a failing watcher's error, after running what was pending", async () => {
  const batches: string[][] = [];
  async function* fails(): AsyncGenerator<Deno.FsEvent> {
    yield modified("/r/a.py");
    throw new Error("watch limit reached");
  }
  await assert.rejects(
    watchBatches(fails(), {
      quietMs: 10_000,
      maxWaitMs: 10_000,
      accept: () => true,
      run: (paths) => {
        batches.push(paths);
        return Promise.resolve();
      },
      onError: (error) => assert.fail(error.message),
    }),
    /watch limit reached/,
  );
  assert.deepEqual(batches, [["/r/a.py"]]);
});
