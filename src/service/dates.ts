import { z } from "zod";
import { UserError } from "../errors.ts";

/** An ISO 8601 date, with a time of day and a zone if given. */
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * The moment an ISO 8601 date or date-time names (`2025-03-01`,
 * `2025-03-01T12:00:00Z`), in milliseconds since the epoch; undefined when the
 * text names no moment, or a day the calendar does not have (`2020-02-30`).
 */
export function parseDate(text: string): number | undefined {
  const parts = ISO_DATE.exec(text.trim());
  if (!parts) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = parts.slice(1).map(Number);
  const calendar = new Date(Date.UTC(year!, month! - 1, day!));
  if (calendar.getUTCMonth() !== month! - 1 || calendar.getUTCDate() !== day) return undefined;
  if (hour! > 23 || minute! > 59 || second! > 60) return undefined;
  const moment = Date.parse(text.trim());
  return Number.isNaN(moment) ? undefined : moment;
}

/** Refuses a validity range that ends before it starts. */
export function checkValidity(
  range: { valid_from?: string | undefined; valid_to?: string | undefined },
): void {
  if (range.valid_from === undefined || range.valid_to === undefined) return;
  if (parseDate(range.valid_to)! < parseDate(range.valid_from)!) {
    throw new UserError(
      `valid_to ${range.valid_to} is before valid_from ${range.valid_from}; a memory is valid ` +
        "from the first to the second",
    );
  }
}

/** An ISO 8601 date or date-time, as the service's and the MCP tools' inputs take them. */
export const isoDate = z.string().refine(
  (text) => parseDate(text) !== undefined,
  "takes an ISO 8601 date",
);

/** The moment of a query's `as_of`; refuses one that names no moment rather than answer with today. */
export function parseAsOf(asOf: string): number {
  const moment = parseDate(asOf);
  if (moment === undefined) {
    throw new UserError(`as_of "${asOf}" is not an ISO 8601 date, like 2025-03-01T12:00:00Z`);
  }
  return moment;
}
