import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** A file in a project's root that keeps its sessions out of cairn. */
export const OPT_OUT_FILE = ".cairn-no-sessions";

/** The project a session ran in. */
export interface SessionProject {
  /** The project's name: its git root's directory name, else the working directory's. */
  name: string | null;
  /** Paths are made relative to this: the git root when found, else the working directory. */
  root: string | null;
  /** The project asked for its sessions not to be stored (an `.cairn-no-sessions` file). */
  optedOut: boolean;
}

/**
 * Finds a working directory's project by walking up to its git root (a
 * `.git` directory, or file in a worktree) when the directory still exists on
 * this machine. Cached: a session has few working directories.
 */
export class ProjectResolver {
  #cache = new Map<string, SessionProject>();

  /** The project of `cwd` (null when the transcript does not say). */
  of(cwd: string | null): SessionProject {
    if (!cwd) return { name: null, root: null, optedOut: false };
    let project = this.#cache.get(cwd);
    if (!project) {
      project = resolve(cwd);
      this.#cache.set(cwd, project);
    }
    return project;
  }
}

function resolve(cwd: string): SessionProject {
  const trimmed = cwd.length > 1 ? cwd.replace(/\/+$/, "") : cwd;
  const root = gitRoot(trimmed) ?? trimmed;
  const optedOut = existsSync(join(root, OPT_OUT_FILE)) ||
    (root !== trimmed && existsSync(join(trimmed, OPT_OUT_FILE)));
  return { name: basename(root) || root, root, optedOut };
}

function gitRoot(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  for (let at = dir;; at = dirname(at)) {
    if (existsSync(join(at, ".git"))) return at;
    if (dirname(at) === at) return undefined;
  }
}
