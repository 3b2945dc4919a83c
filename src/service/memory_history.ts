import type { EventLog } from "../../events/log.ts";
import { parseAsOf } from "./dates.ts";
import type { MemoryRecord } from "./memory_record.ts";
import { withoutUndefined } from "./objects.ts";

/**
 * What was known at `asOf`: every memory folded from the log's events up to
 * that moment (revisions applied, forgotten ones marked, purged ones gone).
 * The log is the history, so no projection has to keep old versions.
 * Refuses an `asOf` that names no moment rather than answer with today.
 */
export async function memoriesAsOf(
  log: EventLog,
  asOf: string,
): Promise<Map<string, MemoryRecord>> {
  const limit = parseAsOf(asOf);
  const memories = new Map<string, MemoryRecord>();
  for await (const event of log.read(1)) {
    if (Date.parse(event.ts) > limit) break;
    switch (event.type) {
      case "memory.remembered": {
        const { id, project, relations: _relations, entities: _entities, ...rest } = event.data;
        memories.set(id, {
          ...withoutUndefined(rest),
          id,
          project,
          created_at: event.ts,
          updated_at: event.ts,
        });
        break;
      }
      case "memory.revised": {
        const current = memories.get(event.data.id);
        if (!current) break;
        const { id: _id, ...changes } = event.data;
        memories.set(event.data.id, {
          ...current,
          ...withoutUndefined(changes),
          updated_at: event.ts,
        });
        break;
      }
      case "memory.forgotten": {
        const current = memories.get(event.data.id);
        if (current) current.forgotten_at = event.ts;
        break;
      }
      case "memory.purged":
        memories.delete(event.data.id);
        break;
    }
  }
  return memories;
}

/** True when `memory` is valid at `moment` (its valid-from/valid-to range, open ends allowed). */
export function validAt(
  memory: Pick<MemoryRecord, "valid_from" | "valid_to">,
  moment: string,
): boolean {
  const at = Date.parse(moment);
  if (memory.valid_from && Date.parse(memory.valid_from) > at) return false;
  if (memory.valid_to && Date.parse(memory.valid_to) < at) return false;
  return true;
}
