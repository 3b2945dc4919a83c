import assert from "node:assert/strict";
import { watchBatches } from "../../src/ingest/watch_batches.ts";

/** File-system events on a schedule: each `[delay ms, path]` waits, then fires. */
async function* scheduled(events: Array<[number, string]>): AsyncGenerator<Deno.FsEvent> {
  for (const [delay, path] of events) {
    await new Promise((done) => setTimeout(done, delay));
    yield { kind: "modify", paths: [path] };
  }
  // The watcher stays open a while after the last change, then closes.
  await new Promise((done) => setTimeout(done, 400));
}

Deno.test("watchBatches() gathers a burst into one batch and hands over the next after quiet", async () => {
  const batches: string[][] = [];
  await watchBatches(
    scheduled([
      [0, "/r/a.py"],
      [5, "/r/b.py"],
      [5, "/r/.git/index"],
      [5, "/r/a.py"],
      [600, "/r/c.py"],
    ]),
    {
      quietMs: 150,
      accept: (path) => !path.includes("/.git/"),
      run: (paths) => {
        batches.push(paths);
        return Promise.resolve();
      },
      onError: (error) => assert.fail(error.message),
    },
  );
  assert.deepEqual(batches, [["/r/a.py", "/r/b.py"], ["/r/c.py"]]);
});

Deno.test("watchBatches() runs what is still pending when the watcher closes, and reports failures", async () => {
  const batches: string[][] = [];
  const errors: string[] = [];
  async function* closesAtOnce(): AsyncGenerator<Deno.FsEvent> {
    yield { kind: "create", paths: ["/r/x.py", "/r/y.py"] };
  }
  await watchBatches(closesAtOnce(), {
    quietMs: 10_000,
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
