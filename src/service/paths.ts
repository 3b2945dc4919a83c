import { join, sep } from "node:path";

/**
 * The store used when `--store` is not given: `$CAIRN_HOME`, else the
 * platform's data directory (`$XDG_DATA_HOME/cairn` or `~/.local/share/cairn`
 * on Linux, `~/Library/Application Support/cairn` on macOS,
 * `%LOCALAPPDATA%\cairn` on Windows).
 */
export function defaultStoreDir(env: (name: string) => string | undefined = Deno.env.get): string {
  const explicit = env("CAIRN_HOME");
  if (explicit) return explicit;
  const home = env("HOME") ?? env("USERPROFILE") ?? ".";
  switch (Deno.build.os) {
    case "darwin":
      return join(home, "Library", "Application Support", "cairn");
    case "windows":
      return join(env("LOCALAPPDATA") ?? join(home, "AppData", "Local"), "cairn");
    default:
      return join(env("XDG_DATA_HOME") ?? join(home, ".local", "share"), "cairn");
  }
}

/** The fixed layout of a store directory. */
export function storeLayout(dir: string) {
  return {
    root: dir,
    log: join(dir, "log"),
    blobs: join(dir, "blobs"),
    projections: join(dir, "projections"),
    /** Projections that could not be read, moved aside before being rebuilt from the log. */
    damaged: join(dir, "damaged"),
    /** Throwaway working folders of the process holding the store; emptied when it is opened. */
    scratch: join(dir, "tmp"),
  };
}

/** True when the absolute, resolved `path` is `folder` or inside it. */
export function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}
