import assert from "node:assert/strict";
import { timeLeft, vectorsSoFar } from "../../src/ops/reembed_ops.ts";

Deno.test("reembed progress names the vectors so far, and the time left once the pace is known", () => {
  const start = { model: "m", vectors: 0, events: 0, of: 10 };
  assert.equal(vectorsSoFar(start), "0 vectors");
  assert.equal(timeLeft(start), "", "no count and no pace: no estimate");
  const counted = { ...start, vectors: 553, expected: 1654 };
  assert.equal(vectorsSoFar(counted), "553 of about 1654 vectors");
  assert.equal(timeLeft(counted), "", "no pace yet");
  assert.equal(timeLeft({ ...counted, rate: 50 }), ", about 22 s left");
  assert.equal(
    timeLeft({ ...counted, vectors: 154, expected: 6154, rate: 50 }),
    ", about 2 min left",
  );
  assert.equal(
    timeLeft({ ...counted, vectors: 1700, rate: 50 }),
    "",
    "past the count: no estimate",
  );
});
