/**
 * The last `cairn verify` of a store, kept in `<store>/verify.json` so that
 * the web view's health page (and anyone) can say when the store was last
 * checked and what was found.
 * @module
 */
import { join } from "node:path";
import { z } from "zod";

/** What the last verify found. */
export const VerifyRecord = z.object({
  /** When it finished (ISO 8601). */
  at: z.string(),
  /** The log's last event then. */
  head: z.number().int().min(0),
  /** How many problems it found (0: the store checked out). */
  problems: z.number().int().min(0),
});

/** What the last verify found. */
export type VerifyRecord = z.infer<typeof VerifyRecord>;

function recordPath(storeDir: string): string {
  return join(storeDir, "verify.json");
}

/** Keeps `record` as the store's last verify; a failure to write it is not the verify's. */
export async function writeVerifyRecord(storeDir: string, record: VerifyRecord): Promise<void> {
  const path = recordPath(storeDir);
  const temporary = `${path}.${Deno.pid}.tmp`;
  try {
    await Deno.writeTextFile(temporary, JSON.stringify(record) + "\n", { mode: 0o600 });
    await Deno.rename(temporary, path);
  } catch {
    await Deno.remove(temporary).catch(() => {});
  }
}

/** The store's last verify, or undefined when none was recorded (or it is unreadable). */
export async function readVerifyRecord(storeDir: string): Promise<VerifyRecord | undefined> {
  try {
    const parsed = VerifyRecord.safeParse(
      JSON.parse(await Deno.readTextFile(recordPath(storeDir))),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
