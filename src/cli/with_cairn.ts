import type { LogRecovery } from "../../events/log.ts";
import { type Cairn, openCairn } from "../service/cairn.ts";

/** Opens the store, says what opening it repaired, runs `work`, and always closes the store again. */
export async function withCairn<T>(
  storeDir: string,
  work: (cairn: Cairn) => Promise<T>,
  warn: (line: string) => void = (line) => console.error(line),
): Promise<T> {
  const cairn = await openCairn(storeDir);
  try {
    reportRecovery(cairn.store.log.recovery, warn);
    return await work(cairn);
  } finally {
    await cairn.close();
  }
}

/** Tells the user that a torn last record was cut off when the log opened. */
export function reportRecovery(recovery: LogRecovery, warn: (line: string) => void): void {
  const torn = recovery.truncatedTail;
  if (!torn) return;
  warn(
    `cairn: warning: the last record of log segment ${torn.segment} was torn (${torn.reason}), ` +
      `probably by a crash; cut ${torn.bytes} bytes at offset ${torn.offset}. ` +
      "Only an unacknowledged write was lost.",
  );
}
