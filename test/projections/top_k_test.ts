import assert from "node:assert/strict";
import { topK } from "../../projections/top_k.ts";

Deno.test("topK() keeps what a full sort would put first, ties broken by the order given", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (const size of [0, 1, 5, 100, 5000]) {
    const scores = Array.from({ length: size }, () => Math.floor(random() * 50));
    const better = (a: number, b: number) =>
      scores[a]! > scores[b]! || (scores[a] === scores[b] && a < b);
    const sorted = scores.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
    for (const k of [0, 1, 3, 10, 6000]) {
      const candidates = scores.map((_, i) => i).sort(() => random() - 0.5);
      assert.deepEqual(topK(candidates, k, better), sorted.slice(0, k), `size ${size}, k ${k}`);
    }
  }
});
