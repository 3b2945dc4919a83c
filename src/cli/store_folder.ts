/**
 * Whether the store folder a command names can serve it: a file where the
 * folder should be is refused for every command, and a folder that does not
 * exist for the commands that need a store already (a mistyped `--store`
 * would otherwise answer "Nothing found." from a new, empty store).
 * @module
 */

/** Why the store at `storeDir` cannot serve the command; undefined when it can. */
export async function storeFolderProblem(
  storeDir: string,
  needsStore: boolean,
): Promise<string | undefined> {
  try {
    const stat = await Deno.stat(storeDir);
    if (stat.isDirectory) return undefined;
    return `${storeDir} is a file; the store is a folder (--store or CAIRN_HOME names it)`;
  } catch (error) {
    if (error instanceof Deno.errors.NotADirectory) {
      return `${storeDir} cannot be a store folder: a part of its path is a file`;
    }
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (!needsStore) return undefined;
  return `no store at ${storeDir}: nothing was remembered or indexed there. Is --store (or ` +
    "CAIRN_HOME) mistyped? A command that writes (remember, import, index, ingest) makes the store";
}
