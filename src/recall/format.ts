import type { RecallAnswer, RecallItem } from "../service/recall_service.ts";

/** How an answer is printed: compact markdown for agents, JSON for programs, debug for tuning. */
export type RecallFormat = "markdown" | "json" | "debug";

/**
 * Compact markdown grouped by kind (Code, Memories, Sessions), with no ids,
 * vectors or timestamps, so the answer costs the agent few tokens.
 */
export function formatMarkdown(answer: RecallAnswer): string {
  const lines: string[] = [];
  const memories = answer.items.filter((item) => item.type === "memory");
  if (memories.length) {
    lines.push("## Memories");
    for (const item of memories) lines.push(memoryLine(item));
  }
  if (lines.length === 0) lines.push("Nothing found.");
  for (const note of answer.notes) lines.push(`> ${note}`);
  return lines.join("\n");
}

function memoryLine(item: RecallItem): string {
  const { memory } = item;
  const tags = memory.tags.filter((tag) => !tag.includes(":")).map((tag) => ` #${tag}`).join("");
  const when = memory.occurred_at ? ` (${memory.occurred_at.slice(0, 10)})` : "";
  return `- [${memory.kind}] ${memory.content.replace(/\s+/g, " ")}${tags}${when}`;
}

/** The answer as one JSON object: items with their fields and scores, and the notes. */
export function formatJson(answer: RecallAnswer): string {
  return JSON.stringify({
    results: answer.items.map((item) => ({
      type: item.type,
      score: round(item.score),
      ...item.memory,
    })),
    notes: answer.notes,
  });
}

/** Every score component of every result, for tuning. */
export function formatDebug(answer: RecallAnswer): string {
  const lines = answer.items.map((item, i) => {
    const c = item.components;
    const parts = [
      `score ${round(item.score)}`,
      `fused ${round(c.fused)}`,
      c.vector ? `vector #${c.vector.rank} d=${round(c.vector.distance)}` : "vector -",
      c.lexical ? `lexical #${c.lexical.rank} s=${round(c.lexical.score)}` : "lexical -",
      c.context ? `context #${c.context.rank} s=${round(c.context.score)}` : "context -",
      c.graph ? `graph #${c.graph.rank} ppr=${round(c.graph.ppr)}` : "graph -",
    ];
    return `${i + 1}. [${item.type} ${item.memory.id}] ${parts.join(" | ")}\n   ${
      item.memory.content.slice(0, 160)
    }`;
  });
  return [...lines, ...answer.notes.map((note) => `> ${note}`)].join("\n");
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
