import type { z } from "zod";
import { describeIssues, UserError } from "../errors.ts";

/**
 * Parses JSONL text line by line against `schema`. The first bad line stops
 * everything with `source:line: what is wrong; <consequence>`, so a file is
 * taken whole or not at all.
 */
export function parseJsonl<T>(
  text: string,
  source: string,
  schema: z.ZodType<T>,
  consequence: string,
): T[] {
  return text.split("\n").flatMap((line, index) => {
    if (!line.trim()) return [];
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new UserError(`${source}:${index + 1}: not valid JSON; ${consequence}`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new UserError(
        `${source}:${index + 1}: ${describeIssues(parsed.error)}; ${consequence}`,
      );
    }
    return [parsed.data];
  });
}
