import { z } from "zod";
import { UserError } from "./errors.ts";

/**
 * The moment an ISO 8601 date or date-time names (`2025-03-01`,
 * `2025-03-01T12:00:00Z`), in milliseconds since the epoch; undefined when the
 * text names no moment.
 */
export function parseDate(text: string): number | undefined {
  const moment = Date.parse(text);
  return Number.isNaN(moment) ? undefined : moment;
}

/** An ISO 8601 date or date-time, as the service's and the MCP tools' inputs take them. */
export const isoDate = z.string().refine(
  (text) => parseDate(text) !== undefined,
  "must be an ISO 8601 date",
);

/** The moment of a query's `as_of`; refuses one that names no moment rather than answer with today. */
export function parseAsOf(asOf: string): number {
  const moment = parseDate(asOf);
  if (moment === undefined) {
    throw new UserError(`as_of "${asOf}" is not an ISO 8601 date, like 2025-03-01T12:00:00Z`);
  }
  return moment;
}
