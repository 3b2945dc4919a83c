import assert from "node:assert/strict";
import { LazyEmbedder } from "../../src/embed/lazy_embedder.ts";
import { openCairn } from "../../src/service/cairn.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";
import { tempDir } from "../helpers.ts";

/** A model that loads once `arrive` is called, as a server's model loads after it starts. */
function modelLoading() {
  const model = new FakeEmbedder();
  let arrived = () => {};
  const loading = new LazyEmbedder(
    model.id,
    model.dims,
    () => new Promise((resolve) => (arrived = () => resolve(model))),
  );
  return { model, loading, arrive: () => arrived() };
}

Deno.test("a server's recall waits a moment for a model still loading, then answers by words", async () => {
  await using tmp = await tempDir();
  const { model, loading, arrive } = modelLoading();
  const cairn = await openCairn(tmp.path, { embedder: loading, awaitModel: false });
  try {
    await cairn.memories.remember({ content: "Deploys go out on Tuesdays", project: null });
    const ask = () =>
      cairn.recall.run({
        query: "when do deploys go out",
        project: null,
        sources: ["memory"],
        limit: 5,
        mode: "hybrid",
      });
    loading.warm();
    const soon = setTimeout(() => arrive(), 100);
    const waited = await ask();
    clearTimeout(soon);
    assert.equal(waited.items.length, 1);
    assert.ok(
      !waited.notes.some((note) => note.includes("not ready")),
      `a model that loads within the wait is used: ${waited.notes.join("; ")}`,
    );
    assert.deepEqual(model.queries, ["when do deploys go out"]);
  } finally {
    await cairn.close();
  }
});

Deno.test("a server's remember waits a moment for a model still loading to check the memory, then goes on without it", async () => {
  await using tmp = await tempDir();
  const { model, loading, arrive } = modelLoading();
  const cairn = await openCairn(tmp.path, { embedder: loading, awaitModel: false });
  try {
    await cairn.store.runner.withBackgroundPaused(async () => {
      // No model comes: the memory is stored after the wait, checked by its text alone.
      const started = performance.now();
      const alone = await cairn.memories.remember({ content: "Deploys go out on Tuesdays" });
      assert.equal(alone.duplicate, false);
      assert.ok(performance.now() - started < 10_000, "not the full check's wait");
      assert.deepEqual(model.embedded, []);
      // A model that loads within the wait checks the next one, against the first too.
      loading.warm();
      const soon = setTimeout(() => arrive(), 100);
      await cairn.memories.remember({ content: "Deploys go out on Thursdays" });
      clearTimeout(soon);
      // One call: the new text, then the memory still waiting for its vector.
      assert.deepEqual(model.embedded.slice(-2), [
        "Deploys go out on Thursdays",
        "Deploys go out on Tuesdays",
      ]);
    });
  } finally {
    await cairn.close();
  }
});
