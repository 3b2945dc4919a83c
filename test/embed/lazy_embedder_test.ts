import assert from "node:assert/strict";
import type { Embedder } from "../../text/embedder.ts";
import { LazyEmbedder } from "../../src/embed/lazy_embedder.ts";
import { FakeEmbedder } from "./fake_embedder.ts";

Deno.test("LazyEmbedder loads on first use, tries a failed load again, then forwards truncation", async () => {
  let loads = 0;
  const model = Object.assign(new FakeEmbedder(), {
    truncation: () => ({ maxTokens: 8, texts: 3, truncated: 1 }),
    queryCutAt: (text: string) => text.length > 8 ? 8 : undefined,
  });
  const lazy = new LazyEmbedder("fake-model", 8, (): Promise<Embedder> => {
    loads++;
    return loads === 1 ? Promise.reject(new Error("hub unreachable")) : Promise.resolve(model);
  });
  assert.equal(loads, 0);
  assert.equal(lazy.truncation(), undefined, "nothing is known before the model loads");
  await assert.rejects(lazy.embedQuery("x"), /hub unreachable/);
  assert.equal((await lazy.embedQuery("x")).length, 8);
  assert.equal(loads, 2);
  assert.deepEqual(lazy.truncation(), { maxTokens: 8, texts: 3, truncated: 1 });
  assert.equal(lazy.queryCutAt("a long query"), 8);
  await lazy.close();
  assert.ok(model.closed);
});

Deno.test("LazyEmbedder waits a moment for a model still loading, closing it when it arrives in time", async () => {
  const model = new FakeEmbedder();
  const lazy = new LazyEmbedder(
    "fake-model",
    8,
    () => new Promise((resolve) => setTimeout(() => resolve(model), 20)),
  );
  const query = lazy.embedQuery("x");
  await lazy.close();
  assert.ok(model.closed, "a load that ends within the wait is closed before close returns");
  await query;
});

Deno.test("LazyEmbedder does not wait long for a model still loading (a download), and closes it once it arrives", async () => {
  const model = new FakeEmbedder();
  let arrive = (_: Embedder) => {};
  const lazy = new LazyEmbedder(
    "fake-model",
    8,
    () => new Promise((resolve) => (arrive = resolve)),
    10,
  );
  const query = lazy.embedQuery("x");
  await lazy.close();
  assert.equal(model.closed, false, "close returned while the model was still loading");
  arrive(model);
  await query;
  await Promise.resolve();
  assert.ok(model.closed);
});

Deno.test("LazyEmbedder.warm() starts the load at once; a failed warm-up is retried by the next use, a loaded model is not loaded again", async () => {
  let loads = 0;
  const model = new FakeEmbedder();
  const lazy = new LazyEmbedder("fake-model", 8, (): Promise<Embedder> => {
    loads++;
    return loads === 1 ? Promise.reject(new Error("hub unreachable")) : Promise.resolve(model);
  });
  lazy.warm();
  assert.equal(loads, 1, "warming starts the load at once");
  await Promise.resolve();
  assert.equal((await lazy.embedQuery("x")).length, 8, "the failed warm-up is tried again");
  lazy.warm();
  await lazy.embedQuery("y");
  assert.equal(loads, 2, "a loaded model is not loaded again");
  await lazy.close();
});
