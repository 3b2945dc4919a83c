import assert from "node:assert/strict";
import type { MemoryRecord } from "../../src/recall/memory_record.ts";
import { newerContradiction } from "../../src/service/near_memories.ts";

function memory(id: string, content: string, at: string, kind = "fact"): MemoryRecord {
  return {
    id,
    project: "web",
    kind,
    content,
    tags: [],
    created_at: at,
    updated_at: at,
  };
}

Deno.test("newerContradiction() names the newest later memory that replaces a number, name or negation", () => {
  const old = memory("a", "Retry failed webhooks 5 times", "2026-01-01T00:00:00Z");
  const near = [
    { memory: memory("b", "Retry failed webhooks 7 times", "2026-02-01T00:00:00Z"), cosine: 0.96 },
    { memory: memory("c", "Retry failed webhooks 9 times", "2026-03-01T00:00:00Z"), cosine: 0.95 },
    { memory: memory("d", "Retry failed webhooks 3 times", "2025-12-01T00:00:00Z"), cosine: 0.97 },
    { memory: memory("e", "Log failed webhooks to Sentry", "2026-04-01T00:00:00Z"), cosine: 0.77 },
  ];
  assert.equal(newerContradiction(old, near)?.memory.id, "c", "the newest, not an older one");
  assert.equal(newerContradiction(near[1]!.memory, near), undefined, "nothing newer replaces c");
});

Deno.test("newerContradiction() leaves conversation turns alone: they record what was said", () => {
  const said = (id: string, content: string, at: string) => memory(id, content, at, "conversation");
  const thanks = said("a", "Caroline: Thanks, Mel!", "2026-01-01T00:00:00Z");
  const wow = { memory: said("b", "Melanie: Wow, Jon!", "2026-02-01T00:00:00Z"), cosine: 0.85 };
  assert.equal(newerContradiction(thanks, [wow]), undefined);
  const fact = memory("c", "We deploy on Fridays", "2026-01-01T00:00:00Z");
  const chat = said("d", "We deploy on Mondays", "2026-02-01T00:00:00Z");
  assert.equal(newerContradiction(fact, [{ memory: chat, cosine: 0.95 }]), undefined);
});
