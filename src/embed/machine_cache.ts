/**
 * Where the embedding cache every store of one user shares lives: one
 * append-only file per model in the platform's cache folder, so a second
 * store, a worktree, a re-clone or a reembed reads the vectors another store
 * computed instead of computing them again.
 * @module
 */
import { join } from "node:path";

/** The value of `CAIRN_CACHE_DIR` that turns the shared cache off. */
export const CACHE_OFF = "off";

/**
 * The folder of the user's shared cache, or undefined when `CAIRN_CACHE_DIR`
 * is `off`: `$CAIRN_CACHE_DIR`, else the platform's cache folder
 * (`$XDG_CACHE_HOME/cairn` or `~/.cache/cairn` on Linux,
 * `~/Library/Caches/cairn` on macOS, `%LOCALAPPDATA%\cairn\cache` on Windows).
 */
export function machineCacheDir(
  env: (name: string) => string | undefined = Deno.env.get,
): string | undefined {
  const explicit = env("CAIRN_CACHE_DIR");
  if (explicit === CACHE_OFF) return undefined;
  if (explicit) return explicit;
  const home = env("HOME") ?? env("USERPROFILE") ?? ".";
  switch (Deno.build.os) {
    case "darwin":
      return join(home, "Library", "Caches", "cairn");
    case "windows":
      return join(env("LOCALAPPDATA") ?? join(home, "AppData", "Local"), "cairn", "cache");
    default:
      return join(env("XDG_CACHE_HOME") ?? join(home, ".cache"), "cairn");
  }
}
