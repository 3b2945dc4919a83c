/**
 * The time arguments the query tools share.
 * @module
 */
import { z } from "zod";

/** An ISO 8601 date or date-time. */
export const isoDate = z.string().refine(
  (s) => !Number.isNaN(Date.parse(s)),
  "must be an ISO 8601 date",
);

/** What a query of the past asks: what was known then. */
export const asOfInput = { as_of: isoDate.optional().describe("ISO date: as known then") };

/** What every memory query can ask about time: what was known then, what was valid then. */
export const timeInput = {
  ...asOfInput,
  valid_at: isoDate.optional().describe("ISO date: valid then"),
};
