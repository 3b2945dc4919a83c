import type { Row } from "../../projections/graph/kuzu.ts";

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

/** The Cypher projection of a memory node `m` that {@linkcode toMemory} reads. */
export const MEMORY_COLUMNS =
  `m.id AS id, m.project AS project, m.kind AS kind, m.content AS content,
  m.tags AS tags, m.source AS source, m.external_id AS external_id, m.created_at AS created_at,
  m.updated_at AS updated_at, m.occurred_at AS occurred_at, m.valid_from AS valid_from,
  m.valid_to AS valid_to, m.forgotten_at AS forgotten_at`;

/** Turns a row of {@linkcode MEMORY_COLUMNS} into a record, dropping empty optional fields. */
export function toMemory(row: Row): MemoryRecord {
  const text = (key: string) => (row[key] as string | null) ?? "";
  const optional = (key: string) => text(key) ? { [key]: text(key) } : {};
  return {
    id: text("id"),
    project: text("project") || null,
    kind: text("kind"),
    content: text("content"),
    tags: (row.tags as string[] | null) ?? [],
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
