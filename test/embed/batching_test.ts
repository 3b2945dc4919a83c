import assert from "node:assert/strict";
import { planBatches } from "../../src/embed/batching.ts";
import { MAX_WORKERS, workerCount } from "../../src/embed/onnx_embedder.ts";
import { outputPositions } from "../../src/embed/onnx_session.ts";
import { poolHidden } from "../../src/embed/pooling.ts";

Deno.test("planBatches() groups longest first under the padded-token budget", () => {
  const batches = planBatches([10, 256, 12, 256, 11, 300], { maxTokens: 600, maxBatch: 64 });
  assert.deepEqual(batches, [
    { indexes: [5, 1], seqLen: 300 },
    { indexes: [3, 2], seqLen: 256 },
    { indexes: [4, 0], seqLen: 11 },
  ]);
});

Deno.test("planBatches() caps texts per batch and gives an over-budget text its own batch", () => {
  assert.deepEqual(planBatches([1, 1, 1], { maxTokens: 100, maxBatch: 2 }).map((b) => b.indexes), [[
    0,
    1,
  ], [2]]);
  assert.deepEqual(planBatches([900, 5], { maxTokens: 600, maxBatch: 64 }), [
    { indexes: [0], seqLen: 900 },
    { indexes: [1], seqLen: 5 },
  ]);
  assert.deepEqual(planBatches([]), []);
});

Deno.test("poolHidden() takes the [CLS] state or the masked mean, normalised", () => {
  // batch 1, seqLen 3, dims 2; the third token is padding.
  const hidden = Float32Array.from([3, 4, 1, 0, 100, 100]);
  const mask = [1, 1, 0];
  const [cls] = poolHidden(hidden, mask, 1, 3, 2, "cls");
  assert.deepEqual([...cls!].map((x) => +x.toFixed(4)), [0.6, 0.8]);
  const [mean] = poolHidden(hidden, mask, 1, 3, 2, "mean");
  const expected = [2 / Math.hypot(2, 2), 2 / Math.hypot(2, 2)];
  assert.deepEqual([...mean!].map((x) => +x.toFixed(4)), expected.map((x) => +x.toFixed(4)));
});

Deno.test("poolHidden() reads each text's [CLS] state from an output cut to that row", () => {
  // batch 2, one position per text (the last layer ran for [CLS] alone), dims 2.
  const hidden = Float32Array.from([3, 4, 0, 2]);
  const vectors = poolHidden(hidden, [1, 1, 1, 1, 0, 0], 2, 1, 2, "cls");
  assert.deepEqual(vectors.map((v) => [...v].map((x) => +x.toFixed(4))), [[0.6, 0.8], [0, 1]]);
});

Deno.test("outputPositions() accepts a [CLS]-only output for [CLS] pooling alone", () => {
  assert.equal(outputPositions([2, 7, 384], 7, "mean"), 7);
  assert.equal(outputPositions([2, 7, 384], 7, "cls"), 7);
  assert.equal(outputPositions([2, 1, 384], 7, "cls"), 1);
  assert.throws(() => outputPositions([2, 1, 384], 7, "mean"), /mean pooling needs every position/);
  assert.throws(
    () => outputPositions([2, 384], 7, "cls"),
    /outputs \[2, 384\] for texts of 7 tokens/,
  );
  assert.throws(() => outputPositions([2, 9, 384], 7, "cls"), /the \[CLS\] position/);
});

Deno.test("workerCount: a model run one text a batch gets a worker per core, at most MAX_WORKERS; one that batches, one worker", () => {
  assert.equal(workerCount({ max_batch: 1 }, 2), 2);
  assert.equal(workerCount({ max_batch: 1 }, 1), 1);
  assert.equal(workerCount({ max_batch: 1 }, 4 * MAX_WORKERS), MAX_WORKERS);
  assert.equal(workerCount({}, 2), 1);
  assert.equal(workerCount({ max_batch: 8 }, 8), 1);
});
