/**
 * What a search includes, by the names users give: `memories`, `code`,
 * `sessions` (past agent sessions) and `graph` (the knowledge graph's
 * entities); every one unless told.
 * @module
 */
import { z } from "zod";
import type { Source } from "../recall/types.ts";

const SOURCES = { memories: "memory", code: "code", sessions: "turn", graph: "entity" } as const;

/** The names a search's `include` takes. */
export const Include = z.enum(["memories", "code", "sessions", "graph"]);

/** The sources of the names `include` gives; every source when it gives none. */
export function sourcesOf(include?: ReadonlyArray<z.output<typeof Include>>): Source[] {
  return (include ?? Include.options).map((name) => SOURCES[name]);
}
