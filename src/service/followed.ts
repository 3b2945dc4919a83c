import type { EventLog } from "../../events/log.ts";
import { MemoryCheckpoints } from "../../projections/checkpoints.ts";
import type { Projection } from "../../projections/projection.ts";
import { ProjectionRunner } from "../../projections/runner.ts";

/**
 * Reads `registered`, the store's own projection, which its runner keeps at
 * the log's head. A store opened without it (a bare `Store` in tests and
 * tools) gets one from `inMemory` instead: held in memory, built from the log
 * on first use and brought to the log's head on every use after.
 */
export function followed<P extends Projection>(
  log: EventLog,
  registered: P | undefined,
  inMemory: () => P,
): () => Promise<P> {
  if (registered) return () => Promise.resolve(registered);
  const projection = inMemory();
  let runner: Promise<ProjectionRunner> | undefined;
  return async () => {
    runner ??= ProjectionRunner.open(log, [projection], new MemoryCheckpoints()).catch((error) => {
      runner = undefined;
      throw error;
    });
    await (await runner).catchUp();
    return projection;
  };
}
