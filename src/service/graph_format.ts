/**
 * The knowledge graph as compact lines, the same in the CLI and over MCP:
 * `Ada (person): maintains billing; on call`, `Ada —maintains→ billing`.
 * @module
 */
import type { EntityRecord, RelationRecord } from "./graph_ops.ts";

/** An entity with its type and observations on one line. */
export function entityLine(entity: EntityRecord): string {
  const observations = entity.observations.length ? `: ${entity.observations.join("; ")}` : "";
  return `${entity.name} (${entity.entityType})${observations}`;
}

/** A relation as `from —type→ to`. */
export function relationLine(relation: RelationRecord): string {
  return `${relation.from} —${relation.relationType}→ ${relation.to}`;
}
