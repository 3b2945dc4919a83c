import type { MemoryRecord } from "../service/memory_record.ts";

/** One memory as a compact markdown line: `- [kind] content (#tags, project)`. */
export function memoryLine(memory: MemoryRecord, withId = true): string {
  const tags = memory.tags.length ? ` ${memory.tags.map((tag) => `#${tag}`).join(" ")}` : "";
  const where = memory.project ? ` (${memory.project})` : "";
  const forgotten = memory.forgotten_at ? " [forgotten]" : "";
  const id = withId ? ` \`${memory.id}\`` : "";
  return `- [${memory.kind}] ${
    memory.content.replace(/\s+/g, " ")
  }${tags}${where}${forgotten}${id}`;
}
