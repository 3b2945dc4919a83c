import type { MemoryHistory } from "../../projections/memory_history.ts";
import { parseAsOf } from "./dates.ts";
import type { MemoryRecord } from "../recall/memory_record.ts";

/**
 * What was known at `asOf`, from the memory history projection: every memory
 * as the log's events up to that moment made it (revisions applied,
 * forgotten ones marked, purged ones gone). Refuses an `asOf` that names no
 * moment rather than answer with today.
 */
export function memoriesThen(history: MemoryHistory, asOf: string): Map<string, MemoryRecord> {
  return history.asOf(parseAsOf(asOf));
}
