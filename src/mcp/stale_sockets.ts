/**
 * The socket folders of owners that died without shutting down (killed, or
 * their machine stopped): each owner listens on `http.sock` in a
 * `cairn-serve-*` folder of the temporary directory. A socket nothing
 * listens on any more is removed, with its folder, when another owner shuts
 * down.
 * @module
 */
import { join } from "node:path";

/** Where the owners' socket folders are, and what they are called. */
export const SOCKET_FOLDER_PREFIX = "cairn-serve-";

/** Removes the socket folders in `tmp` whose socket no process listens on; resolves to how many. */
export async function removeStaleSockets(tmp: string): Promise<number> {
  let removed = 0;
  const entries = await Array.fromAsync(Deno.readDir(tmp)).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory || !entry.name.startsWith(SOCKET_FOLDER_PREFIX)) continue;
    const folder = join(tmp, entry.name);
    if (await listening(join(folder, "http.sock"))) continue;
    // A folder just made, whose owner has not listened yet, is young: left alone.
    const made = (await Deno.stat(folder).catch(() => undefined))?.mtime?.getTime() ?? Date.now();
    if (Date.now() - made < 60_000) continue;
    await Deno.remove(folder, { recursive: true }).then(() => removed++, () => {});
  }
  return removed;
}

async function listening(path: string): Promise<boolean> {
  try {
    (await Deno.connect({ transport: "unix", path })).close();
    return true;
  } catch {
    return false;
  }
}
