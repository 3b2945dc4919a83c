/**
 * The knowledge graph as compact lines, the same in the CLI and over MCP:
 * `Ada (person): maintains billing; on call`, `Ada —maintains→ billing`.
 * @module
 */
import {
  type EntityRecord,
  type GraphPage,
  MAX_PAGE_RELATIONS,
  type RelationRecord,
} from "./graph_ops.ts";

/** An entity with its type and observations on one line. */
export function entityLine(entity: EntityRecord): string {
  const observations = entity.observations.length ? `: ${entity.observations.join("; ")}` : "";
  return `${entity.name} (${entity.entityType})${observations}`;
}

/** A relation as `from —type→ to`. */
export function relationLine(relation: RelationRecord): string {
  return `${relation.from} —${relation.relationType}→ ${relation.to}`;
}

/** The note a page needs when it left relations out; undefined when it left none. */
export function omittedRelationsNote(page: GraphPage): string | undefined {
  if (!page.relationsOmitted) return undefined;
  return `${page.relationsOmitted} more relations of these entities not listed: ` +
    `a page lists at most ${MAX_PAGE_RELATIONS}`;
}
