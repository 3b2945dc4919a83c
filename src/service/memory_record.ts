import type { MemoryRow } from "../../projections/graph/queries/memories.ts";

/** A memory as queries return it. */
export interface MemoryRecord {
  id: string;
  project: string | null;
  kind: string;
  content: string;
  tags: string[];
  source?: string;
  external_id?: string;
  created_at: string;
  updated_at: string;
  occurred_at?: string;
  valid_from?: string;
  valid_to?: string;
  forgotten_at?: string;
}

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
