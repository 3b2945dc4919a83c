import { join } from "node:path";

/** Raised when another process already owns the store. */
export class StoreLockedError extends Error {
  override name = "StoreLockedError";
  constructor(readonly store: string, readonly ownerPid: number | undefined) {
    super(
      `store ${store} is in use by ${ownerPid ? `process ${ownerPid}` : "another process"}` +
        " (a running `cairn serve` or `cairn mcp`, or another command); " +
        "stop it or wait for it to finish, or use another --store",
    );
  }
}

/**
 * The exclusive writer lock of a store: an advisory lock on `LOCK`, released by
 * the kernel when the process dies, with the owner's pid written inside so the
 * next process can name it.
 */
export class StoreLock {
  private constructor(private readonly file: Deno.FsFile) {}

  /**
   * Takes the lock, waiting up to `waitMs` (default: `CAIRN_LOCK_WAIT_SECONDS`,
   * else 10 s) for another process to let it go, so two commands started
   * together (two hooks) run one after the other; then throws
   * {@linkcode StoreLockedError} naming the owner.
   */
  static async acquire(storeDir: string, waitMs = defaultWaitMs()): Promise<StoreLock> {
    const path = join(storeDir, "LOCK");
    const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
    const deadline = Date.now() + waitMs;
    while (!await file.tryLock(true)) {
      if (Date.now() >= deadline) {
        file.close();
        throw new StoreLockedError(storeDir, await readOwner(storeDir));
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
    await file.truncate(0);
    await file.write(new TextEncoder().encode(`${Deno.pid}\n`));
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

/** The pid written by the store's current or last owner, if any. */
export async function readOwner(storeDir: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await Deno.readTextFile(join(storeDir, "LOCK")), 10);
    return Number.isFinite(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}
