/**
 * What a client of the owner does when the owner dies under a request: a
 * request that never reached it can go to a new owner; one it died answering
 * is never sent again (it may be what killed it, and would kill the next one
 * too), and the death is written to the store's owner log with the request.
 * @module
 */
import { appendOwnerLog, ownerFiles, readOwnerRecord } from "./owner_file.ts";

/**
 * Connections to the owner are never pooled: Deno's fetch sends a request
 * again on a new connection when a pooled one dies under it, so an owner that
 * died answering would look like one that was never reached.
 */
const unpooled = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });

/** `fetch` for requests to an owner, on a connection of their own (see {@linkcode neverSent}). */
export const ownerFetch: typeof fetch = (input, init) =>
  fetch(input, { ...init, client: unpooled });

/** True when a request sent with {@linkcode ownerFetch} failed before reaching the owner: nothing was sent, so sending it again is safe. */
export function neverSent(error: unknown): boolean {
  for (let at: unknown = error; at instanceof Error; at = at.cause) {
    if (/tcp connect error|connection refused|ECONNREFUSED/i.test(at.message)) return true;
    if ((at as { code?: unknown }).code === "ECONNREFUSED") return true;
  }
  return false;
}

/**
 * Notes in the owner's log that it died while answering `what`, and returns
 * the error to give the caller, naming the log.
 */
export async function ownerDied(storeDir: string, what: string, error: unknown): Promise<Error> {
  const pid = (await readOwnerRecord(storeDir))?.pid;
  const owner = pid === undefined ? "the store's owner" : `the store's owner (pid ${pid})`;
  const detail = error instanceof Error ? error.message : String(error);
  what = what.length > 200 ? `${what.slice(0, 200)}…` : what;
  await appendOwnerLog(storeDir, `${owner} stopped while answering ${what} (${detail})`);
  return new Error(
    `${owner} stopped while answering ${what}; it was not sent again, since it may be what ` +
      "stopped the owner, and what it writes may have been stored before it stopped (look " +
      `before doing it again). The next request starts a new owner; see ${
        ownerFiles(storeDir).log
      }`,
  );
}
