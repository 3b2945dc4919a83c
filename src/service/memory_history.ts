import type { EventLog } from "../../events/log.ts";
import type { StoredEvent } from "../../events/schema.ts";
import { MemoryHistory } from "../../projections/memory_history.ts";
import { APPLY_BATCH } from "../../projections/runner.ts";
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

/** {@linkcode memoriesThen} for a log alone: its memory events folded into a history first. */
export async function memoriesAsOf(
  log: EventLog,
  asOf: string,
): Promise<Map<string, MemoryRecord>> {
  const limit = parseAsOf(asOf);
  const history = MemoryHistory.inMemory();
  let batch: StoredEvent[] = [];
  for await (const event of log.read(1)) {
    // The first event appended after the moment ends what it saw.
    if (Date.parse(event.ts) > limit) break;
    batch.push(event);
    if (batch.length === APPLY_BATCH) {
      await history.apply(batch);
      batch = [];
    }
  }
  await history.apply(batch);
  return history.asOf(limit);
}
