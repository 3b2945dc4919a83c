import assert from "node:assert/strict";
import { reciprocalRankFusion } from "../../src/recall/fuse.ts";

Deno.test("reciprocalRankFusion() sums weight / (k + rank) over the lists", () => {
  const fused = reciprocalRankFusion(
    { vector: ["a", "b", "c"], lexical: ["c", "a"] },
    { vector: 1, lexical: 1, context: 1, graph: 1, mention: 1, file: 1 },
    60,
  );
  assert.deepEqual(fused.map((f) => f.id), ["a", "c", "b"]);
  assert.equal(fused[0]!.score, 1 / 61 + 1 / 62);
  assert.equal(fused[1]!.score, 1 / 63 + 1 / 61);
  assert.equal(fused[2]!.score, 1 / 62);
  assert.deepEqual(fused[1]!.ranks, { vector: 3, lexical: 1 });
});

Deno.test("reciprocalRankFusion() applies weights and counts an id once per list", () => {
  const fused = reciprocalRankFusion(
    { vector: ["a", "a"], graph: ["b"] },
    { vector: 0.4, lexical: 0.15, context: 0, graph: 0.45, mention: 0, file: 0 },
    60,
  );
  assert.deepEqual(fused.map((f) => f.id), ["b", "a"]);
  assert.equal(fused[1]!.score, 0.4 / 61);
  assert.equal(fused[0]!.score, 0.45 / 61);
});

Deno.test("reciprocalRankFusion() gives every id of a group the group's rank", () => {
  const fused = reciprocalRankFusion(
    { context: [["a", "b"], "c"] },
    { vector: 0, lexical: 0, context: 1, graph: 0, mention: 0, file: 0 },
    60,
  );
  assert.deepEqual(fused.map((f) => [f.id, f.score, f.ranks.context]), [
    ["a", 1 / 61, 1],
    ["b", 1 / 61, 1],
    ["c", 1 / 62, 2],
  ]);
});
