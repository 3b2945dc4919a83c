import assert from "node:assert/strict";
import { aboveCut, byRelevance, RELEVANCE_CUT, TIE } from "../../src/service/relevance_cut.ts";

Deno.test("aboveCut() keeps the hits scoring at least a quarter of the best, in their order", () => {
  assert.equal(RELEVANCE_CUT, 0.25);
  const hits = [{ id: "a", score: 8 }, { id: "b", score: 2 }, { id: "c", score: 1.9 }];
  assert.deepEqual(aboveCut(hits).map((hit) => hit.id), ["a", "b"]);
  assert.deepEqual(aboveCut([]), []);
});

Deno.test("byRelevance() ranks best first and near-equal scores newest first", () => {
  const ranked = byRelevance([
    { id: "weak, newest", score: 1, at: "2026-03-01T00:00:00Z" },
    { id: "best, oldest", score: 3, at: "2026-01-01T00:00:00Z" },
    { id: "tie, newer", score: 3 * (1 - TIE), at: "2026-02-01T00:00:00Z" },
    { id: "second", score: 2, at: "2026-01-15T00:00:00Z" },
    { id: "equal, newer", score: 2, at: "2026-02-15T00:00:00Z" },
  ]);
  assert.deepEqual(ranked.map((hit) => hit.id), [
    "tie, newer",
    "best, oldest",
    "equal, newer",
    "second",
    "weak, newest",
  ]);
});

Deno.test("byRelevance() measures a tie from the first of its run, so a slope of small steps is not one tie", () => {
  const steps = [10, 9.6, 9.2, 8.8].map((score, i) => ({ score, at: `2026-01-0${i + 1}` }));
  assert.deepEqual(byRelevance(steps).map((hit) => hit.score), [9.6, 10, 8.8, 9.2]);
});
