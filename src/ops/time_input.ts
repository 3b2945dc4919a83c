/**
 * The time arguments the query tools share.
 * @module
 */
import { isoDate } from "../service/dates.ts";

/** What a query of the past asks: what was known then. */
export const asOfInput = { as_of: isoDate.optional().describe("ISO date: as known then") };

/** What every memory query can ask about time: what was known then, what was valid then. */
export const timeInput = {
  ...asOfInput,
  valid_at: isoDate.optional().describe("ISO date: valid then"),
};
