import assert from "node:assert/strict";
import { currentFirst } from "../../src/recall/current_first.ts";

const memory = (id: string, newer?: string) => ({
  type: "memory",
  memory: { id },
  ...(newer ? { newer: { memory: { id: newer } } } : {}),
});
const code = (id: string) => ({ type: "code", id });
const ids = (items: ReadonlyArray<{ memory?: { id: string }; id?: string }>) =>
  items.map((item) => item.memory?.id ?? item.id);

Deno.test("currentFirst() brings the memory that replaces others up to the first one's place, they follow it", () => {
  // 7 days, then 14, then 21: the first two were replaced by the third.
  const items = [
    memory("days7", "days21"),
    code("c1"),
    memory("days14", "days21"),
    memory("days21"),
  ];
  assert.deepEqual(ids(currentFirst(items)), ["days21", "days7", "days14", "c1"]);
  // A chain: 7 replaced by 14, 14 by 21.
  const chain = [
    memory("days7", "days14"),
    code("c1"),
    memory("days14", "days21"),
    memory("days21"),
  ];
  assert.deepEqual(ids(currentFirst(chain)), ["days21", "days14", "days7", "c1"]);
  // Already current first, or the replacement not in the answer: nothing moves.
  const kept = [memory("days21"), memory("days7", "days21"), code("c1"), memory("x", "absent")];
  assert.deepEqual(ids(currentFirst(kept)), ["days21", "days7", "c1", "x"]);
});

Deno.test("currentFirst() keeps every item when replacements name each other in a ring", () => {
  const items = [memory("a", "b"), memory("b", "a"), code("c1"), memory("self", "self")];
  assert.deepEqual(ids(currentFirst(items)).sort(), ["a", "b", "c1", "self"]);
});
