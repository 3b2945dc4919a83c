import type { MemoryRow } from "../../projections/graph/queries/memories.ts";
import type { PastMemory } from "../../projections/memory_history.ts";
import type { FactDifferences } from "../../text/fact_differences.ts";

/** A memory as queries return it: the shape the memory history keeps its past in. */
export type MemoryRecord = PastMemory;

/** Turns a memory the graph returned into a record, dropping empty optional fields. */
export function toMemory(row: MemoryRow): MemoryRecord {
  const text = (key: Exclude<keyof MemoryRow, "tags">) => row[key] ?? "";
  const optional = (key: Exclude<keyof MemoryRow, "tags">) => text(key) ? { [key]: text(key) } : {};
  return {
    id: text("id"),
    project: text("project") || null,
    kind: text("kind"),
    content: text("content"),
    tags: row.tags ?? [],
    created_at: text("created_at"),
    updated_at: text("updated_at"),
    ...optional("source"),
    ...optional("external_id"),
    ...optional("occurred_at"),
    ...optional("valid_from"),
    ...optional("valid_to"),
    ...optional("forgotten_at"),
  };
}

/** A stored memory another may contradict, and what differs (old first). */
export interface Contradiction {
  memory: MemoryRecord;
  differences: FactDifferences;
}

/** True when `memory` is valid at `moment` (its valid-from/valid-to range, open ends allowed). */
export function validAt(
  memory: Pick<MemoryRecord, "valid_from" | "valid_to">,
  moment: string,
): boolean {
  const at = Date.parse(moment);
  if (memory.valid_from && Date.parse(memory.valid_from) > at) return false;
  if (memory.valid_to && Date.parse(memory.valid_to) < at) return false;
  return true;
}
