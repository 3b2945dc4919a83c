/**
 * The knowledge graph as compact lines, the same in the CLI and over MCP:
 * `Ada (person): maintains billing; on call`, `Ada —maintains→ billing`.
 * @module
 */
import { plural } from "../recall/vector_lag.ts";
import {
  type EntityRecord,
  type GraphPage,
  MAX_PAGE_RELATIONS,
  relationLine,
} from "./graph_ops.ts";

/** An entity with its type and observations on one line. */
export function entityLine(entity: EntityRecord): string {
  const observations = entity.observations.length ? `: ${entity.observations.join("; ")}` : "";
  return `${entity.name} (${entity.entityType})${observations}`;
}

/**
 * A page of the graph as lines: its entities, its relations, then what it
 * left out and how to ask for the next page: `offset` is this page's, and
 * `nextPage` names the next one as the caller asks for it (`--cursor 50`).
 */
export function pageLines(
  page: GraphPage,
  offset: number,
  nextPage: (offset: number) => string,
): string[] {
  const lines = page.entities.map((entity) => `- ${entityLine(entity)}`);
  lines.push(...page.relations.map((relation) => `- ${relationLine(relation)}`));
  if (lines.length === 0) lines.push("No entities.");
  if (page.relationsOmitted) {
    lines.push(
      `> ${page.relationsOmitted} more relations of these entities not listed: ` +
        `a page lists at most ${MAX_PAGE_RELATIONS}`,
    );
  }
  if (page.more > 0) {
    lines.push(
      `> ${plural(page.more, "more entity", "more entities")}; next page: ${
        nextPage(offset + page.entities.length)
      }`,
    );
  }
  return lines;
}
