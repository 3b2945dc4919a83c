import { existsSync } from "node:fs";
import { join, sep } from "node:path";
import { defaultProjectName, findRepository } from "../code/project.ts";

/** A file in a project's root that keeps its sessions out of cairn. */
export const OPT_OUT_FILE = ".cairn-no-sessions";

/** The project a session ran in. */
export interface SessionProject {
  /**
   * The project's name: the indexed project holding the working directory (or
   * another worktree of its repository), else the repository's name as
   * `cairn index` would give it, else the working directory's.
   */
  name: string | null;
  /** Paths are made relative to this: the work tree's root when found, else the working directory. */
  root: string | null;
  /** The project asked for its sessions not to be stored (an `.cairn-no-sessions` file). */
  optedOut: boolean;
}

/** An indexed project, as sessions are matched to it. */
export interface IndexedProject {
  name: string;
  root: string;
  /** The main repository's folder, when the project is a git repository. */
  gitRoot?: string;
}

/** Where a working directory is: its work tree's root and the main repository's folder. */
interface Place {
  root: string;
  repository: string;
  optedOut: boolean;
}

/**
 * Finds a working directory's project by walking up to its git root (a
 * `.git` directory, or file in a worktree) when the directory still exists on
 * this machine. The folders are cached (a session has few working
 * directories); the name is matched against the indexed projects each time.
 */
export class ProjectResolver {
  #cache = new Map<string, Place>();

  /** The project of `cwd` (null when the transcript does not say), among `indexed`. */
  of(cwd: string | null, indexed: readonly IndexedProject[] = []): SessionProject {
    if (!cwd) return { name: null, root: null, optedOut: false };
    let place = this.#cache.get(cwd);
    if (!place) this.#cache.set(cwd, place = locate(cwd));
    const name = indexedProjectOf(cwd, place, indexed)?.name ??
      defaultProjectName(place.repository);
    return { name, root: place.root, optedOut: place.optedOut };
  }
}

/** The indexed project holding `cwd` (the innermost), else one of its repository's worktrees. */
function indexedProjectOf(
  cwd: string,
  place: Place,
  indexed: readonly IndexedProject[],
): IndexedProject | undefined {
  const holding = indexed.filter((project) =>
    cwd === project.root ||
    cwd.startsWith(project.root.endsWith(sep) ? project.root : project.root + sep)
  ).sort((a, b) => b.root.length - a.root.length);
  return holding[0] ??
    indexed.find((project) => (project.gitRoot ?? project.root) === place.repository);
}

function locate(cwd: string): Place {
  const trimmed = cwd.length > 1 ? cwd.replace(/\/+$/, "") : cwd;
  const repository = existsSync(trimmed) ? findRepository(trimmed) : undefined;
  const root = repository?.root ?? trimmed;
  const optedOut = existsSync(join(root, OPT_OUT_FILE)) ||
    (root !== trimmed && existsSync(join(trimmed, OPT_OUT_FILE)));
  return { root, repository: repository?.gitRoot ?? root, optedOut };
}
