import { join } from "node:path";

/**
 * Who holds a store's lock, as the holder wrote it in `LOCK`: its pid and its
 * command line (`args`: its arguments, e.g. `["--no-owner", "reembed"]`;
 * undefined when it wrote none, as a process older than this field did).
 */
export interface LockHolder {
  pid: number;
  args?: string[];
}

/** Raised when another process already owns the store. */
export class StoreLockedError extends Error {
  override name = "StoreLockedError";
  constructor(readonly store: string, readonly holder: LockHolder | undefined) {
    super(
      `store ${store} is in use by ${describeHolder(holder)}` +
        (holderCommand(holder)
          ? ""
          : " (a running `cairn serve` or `cairn mcp`, or another command)") +
        "; stop it or wait for it to finish, or use another --store",
    );
  }
}

/** `process 42 (`cairn --no-owner reembed`)`, or as much as is known of the holder. */
export function describeHolder(holder: LockHolder | undefined): string {
  if (!holder) return "another process";
  const command = holderCommand(holder);
  return `process ${holder.pid}${command ? ` (\`${command}\`)` : ""}`;
}

/** The holder's command line as typed (`cairn --no-owner reembed`), when it wrote one. */
export function holderCommand(holder: LockHolder | undefined): string | undefined {
  return holder?.args?.length ? `cairn ${holder.args.join(" ")}` : undefined;
}

/**
 * The exclusive writer lock of a store: an advisory lock on `LOCK`, released by
 * the kernel when the process dies, with the holder's pid and command line
 * written inside so the next process can name it.
 */
export class StoreLock {
  private constructor(private readonly file: Deno.FsFile) {}

  /**
   * Takes the lock, waiting up to `waitMs` (default: `CAIRN_LOCK_WAIT_SECONDS`,
   * else 10 s) for another process to let it go, so two commands started
   * together (two hooks) run one after the other; then throws
   * {@linkcode StoreLockedError} naming the holder.
   */
  static async acquire(storeDir: string, waitMs = defaultWaitMs()): Promise<StoreLock> {
    const path = join(storeDir, "LOCK");
    const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
    const deadline = Date.now() + waitMs;
    while (!await file.tryLock(true)) {
      if (Date.now() >= deadline) {
        file.close();
        throw new StoreLockedError(storeDir, await lastHolder(storeDir));
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
    await file.truncate(0);
    await file.write(new TextEncoder().encode(`${Deno.pid}\n${JSON.stringify(Deno.args)}\n`));
    return new StoreLock(file);
  }

  /** Releases the lock. */
  async release(): Promise<void> {
    await this.file.unlock();
    this.file.close();
  }
}

const RETRY_MS = 50;

function defaultWaitMs(): number {
  const seconds = Number(Deno.env.get("CAIRN_LOCK_WAIT_SECONDS") ?? 10);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 10_000;
}

/**
 * The process holding the store's lock now, or undefined when none does (or
 * the store has no `LOCK`). Takes the lock shared for an instant to tell, and
 * never creates the file.
 */
export async function currentHolder(storeDir: string): Promise<LockHolder | undefined> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(join(storeDir, "LOCK"), { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    throw error;
  }
  try {
    if (await file.tryLock(false)) {
      await file.unlock();
      return undefined;
    }
  } finally {
    file.close();
  }
  return await lastHolder(storeDir);
}

/** What the store's current or last holder wrote in `LOCK`, if anything readable. */
export async function lastHolder(storeDir: string): Promise<LockHolder | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(storeDir, "LOCK"));
  } catch {
    return undefined;
  }
  const [first = "", second = ""] = text.split("\n");
  const pid = Number.parseInt(first, 10);
  if (!Number.isFinite(pid)) return undefined;
  const args = parsedArgs(second);
  return args ? { pid, args } : { pid };
}

function parsedArgs(line: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return Array.isArray(value) && value.every((arg) => typeof arg === "string")
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}
