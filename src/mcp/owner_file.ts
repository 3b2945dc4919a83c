/**
 * How the process that owns a store is found: `cairn serve` writes
 * `<store>/serve.json` (its pid and port) once it listens, and keeps a bearer
 * token in `<store>/serve.token`, readable by the store's user alone.
 * @module
 */
import { join } from "node:path";

/** Where the owner of a store listens. */
export interface OwnerRecord {
  pid: number;
  port: number;
  started_at: string;
  /** When the owner's code last changed (see `build_stamp.ts`); absent from older owners. */
  build?: number;
}

/**
 * The owner record in `value` (the parsed `serve.json`), its other fields left
 * out; undefined when it is not one. Checked by hand, not with zod: every
 * command sent to the owner reads it, and loading zod took a third of such a
 * command's start.
 */
function ownerRecordOf(value: unknown): OwnerRecord | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { pid, port, started_at, build } = value as Record<string, unknown>;
  if (!Number.isInteger(pid) || typeof started_at !== "string") return undefined;
  if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65535) return undefined;
  return {
    pid: pid as number,
    port: port as number,
    started_at,
    ...(typeof build === "number" ? { build } : {}),
  };
}

/** The files that name a store's owner. */
export function ownerFiles(storeDir: string) {
  return {
    record: join(storeDir, "serve.json"),
    token: join(storeDir, "serve.token"),
    log: join(storeDir, "serve.log"),
  };
}

/** The owner's record, or undefined when none was written or it is unreadable. */
export async function readOwnerRecord(storeDir: string): Promise<OwnerRecord | undefined> {
  try {
    return ownerRecordOf(JSON.parse(await Deno.readTextFile(ownerFiles(storeDir).record)));
  } catch {
    return undefined;
  }
}

/** Writes the owner's record whole (a reader never sees half of it). */
export async function writeOwnerRecord(storeDir: string, record: OwnerRecord): Promise<void> {
  const path = ownerFiles(storeDir).record;
  const temporary = `${path}.${record.pid}.tmp`;
  await Deno.writeTextFile(temporary, JSON.stringify(record) + "\n", { mode: 0o600 });
  await Deno.rename(temporary, path);
}

/** Removes the owner's record if it still names `pid`. */
export async function removeOwnerRecord(storeDir: string, pid: number): Promise<void> {
  if ((await readOwnerRecord(storeDir))?.pid !== pid) return;
  await Deno.remove(ownerFiles(storeDir).record).catch(() => {});
}

/** The store's bearer token, or undefined when there is none yet. */
export async function readToken(storeDir: string): Promise<string | undefined> {
  try {
    return (await Deno.readTextFile(ownerFiles(storeDir).token)).trim() || undefined;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/**
 * A new bearer token for the store (256 random bits), replacing the last
 * owner's, so a token that reached anyone while no owner listened is worth
 * nothing. Kept at mode 0600 so only the store's user can read it. Only the
 * process holding the store's lock calls this.
 */
export async function newToken(storeDir: string): Promise<string> {
  const path = ownerFiles(storeDir).token;
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const temporary = `${path}.${Deno.pid}.tmp`;
  await Deno.writeTextFile(temporary, token + "\n", { mode: 0o600 });
  if (Deno.build.os !== "windows") await Deno.chmod(temporary, 0o600);
  await Deno.rename(temporary, path);
  return token;
}

/** Adds a line to the owner's log in the store, where a user looks when the owner is gone. */
export async function appendOwnerLog(storeDir: string, line: string): Promise<void> {
  await Deno.writeTextFile(ownerFiles(storeDir).log, `${new Date().toISOString()} ${line}\n`, {
    append: true,
    mode: 0o600,
  }).catch(() => {});
}
