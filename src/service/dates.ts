/**
 * The moment an ISO 8601 date or date-time names (`2025-03-01`,
 * `2025-03-01T12:00:00Z`), in milliseconds since the epoch; undefined when the
 * text names no moment.
 */
export function parseDate(text: string): number | undefined {
  const moment = Date.parse(text);
  return Number.isNaN(moment) ? undefined : moment;
}
