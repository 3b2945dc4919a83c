/**
 * When the running cairn's code last changed: the compiled binary's time, or
 * under `deno run` the newest time of the source tree's folders (a pull, a
 * checkout or an upgrade replaces files, which changes their folders' times).
 * An owner records it; a command that finds the store's owner running older
 * code asks it to step aside, so an upgrade takes effect at the next command
 * instead of when the old owner idles out.
 * @module
 */
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The folders of the source tree the owner's code lives in. */
const CODE_FOLDERS = ["src", "projections", "events", "text"];

let stamp: number | undefined;

/**
 * This process's code's last change, in milliseconds since the epoch (0 when
 * unknown); measured once, with synchronous calls (some forty folders: a
 * millisecond, where awaiting each took ten).
 */
export function buildStamp(): number {
  return stamp ??= measure();
}

function measure(): number {
  const exec = Deno.execPath();
  if (!/^deno(\.exe)?$/i.test(basename(exec))) return modified(exec);
  // The tree this module is part of, whichever module started the process (a test, main.ts).
  const root = fileURLToPath(new URL("../../", import.meta.url));
  return Math.max(
    modified(join(root, "main.ts")),
    modified(root),
    ...CODE_FOLDERS.map((folder) => newestFolder(join(root, folder))),
  );
}

/** The newest modification time of `folder` and the folders below it. */
function newestFolder(folder: string): number {
  let newest = modified(folder);
  try {
    for (const entry of Deno.readDirSync(folder)) {
      if (entry.isDirectory) newest = Math.max(newest, newestFolder(join(folder, entry.name)));
    }
  } catch {
    // A folder that cannot be read counts by its own time.
  }
  return newest;
}

function modified(path: string): number {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? 0;
  } catch {
    return 0;
  }
}
