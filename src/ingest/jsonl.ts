import type { z } from "zod";
import { describeIssues, UserError } from "../errors.ts";

/** Most bad lines named; past them, how many more there are. */
const BAD_LINES_SHOWN = 20;

/**
 * Parses JSONL text line by line against `schema`. Bad lines stop everything
 * with each one's `source:line: what is wrong` (the first
 * {@linkcode BAD_LINES_SHOWN}, and how many more) and `consequence`, so a file
 * is taken whole or not at all, and mended in one go.
 */
export function parseJsonl<T>(
  text: string,
  source: string,
  schema: z.ZodType<T>,
  consequence: string,
): T[] {
  const records: T[] = [];
  const bad: string[] = [];
  for (const [index, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      bad.push(`${source}:${index + 1}: not valid JSON`);
      continue;
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) records.push(parsed.data);
    else bad.push(`${source}:${index + 1}: ${describeIssues(parsed.error)}`);
  }
  if (bad.length === 1) throw new UserError(`${bad[0]}; ${consequence}`);
  if (bad.length > 1) {
    const more = bad.length > BAD_LINES_SHOWN ? [`and ${bad.length - BAD_LINES_SHOWN} more`] : [];
    throw new UserError(
      [`${bad.length} lines are wrong; ${consequence}:`, ...bad.slice(0, BAD_LINES_SHOWN), ...more]
        .join("\n"),
    );
  }
  return records;
}
