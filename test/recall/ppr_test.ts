import assert from "node:assert/strict";
import { type Edge, personalizedPageRank } from "../../src/recall/ppr.ts";

Deno.test("personalizedPageRank() on a path favours nodes near the seed", () => {
  const path: Edge[] = [["a", "b"], ["b", "c"], ["c", "d"]];
  const rank = personalizedPageRank(path, new Map([["a", 1]]));
  const score = (id: string) => rank.get(id) ?? 0;
  assert.ok(score("b") > score("c") && score("c") > score("d") && score("a") > score("c"));
  const total = [...rank.values()].reduce((s, v) => s + v, 0);
  assert.ok(Math.abs(total - 1) < 1e-9, `scores sum to ${total}`);
});

Deno.test("personalizedPageRank() on a symmetric star gives equal leaves and matches the closed form", () => {
  // Seeded at the centre: leaves (equal degree, so equal entry weights) each get
  // 0.85 c / 3 and send it all back, so c = 0.15 + 0.85 (1 - c) + ... => c = 1 / 1.85.
  const star: Edge[] = [["c", "x"], ["c", "y"], ["c", "z"]];
  const rank = personalizedPageRank(star, new Map([["c", 1]]), { iterations: 200 });
  const [x, y, z] = ["x", "y", "z"].map((id) => rank.get(id)!);
  assert.ok(Math.abs(x! - y!) < 1e-12 && Math.abs(y! - z!) < 1e-12);
  const c = rank.get("c")!;
  assert.ok(Math.abs(c - 1 / 1.85) < 1e-9, `centre ${c}`);
  assert.ok(Math.abs(x! - (0.85 / 1.85) / 3) < 1e-9);
});

Deno.test("personalizedPageRank() dampens hubs: a memory reached through a rare entity beats one through a hub", () => {
  const edges: Edge[] = [
    ["seed", "rare"],
    ["rare", "m_rare"],
    ["seed", "hub"],
    ["hub", "m_hub"],
    ...Array.from({ length: 20 }, (_, i) => ["hub", `other${i}`] as Edge),
  ];
  const rank = personalizedPageRank(edges, new Map([["seed", 1]]));
  assert.ok(rank.get("m_rare")! > rank.get("m_hub")! * 5);
});

Deno.test("personalizedPageRank() with no positive seed returns nothing", () => {
  assert.equal(personalizedPageRank([["a", "b"]], new Map([["a", 0]])).size, 0);
});
