import { readFileSync, type Stats, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** Where a directory's repository is: its work tree, and the main repository worktrees share. */
export interface Repository {
  /** The work tree's top folder (holds `.git`). */
  root: string;
  /** The main repository's folder: the same as `root` except in a linked worktree. */
  gitRoot: string;
}

/**
 * The git repository `dir` is in, found by walking up to a `.git` (a folder,
 * or a file in a linked worktree); undefined outside any.
 */
export function findRepository(dir: string): Repository | undefined {
  for (let current = resolve(dir);; current = dirname(current)) {
    const dotGit = join(current, ".git");
    const stat = statOrUndefined(dotGit);
    if (stat?.isDirectory()) return { root: current, gitRoot: current };
    if (stat?.isFile()) {
      return {
        root: current,
        gitRoot: worktreeMain(current, readFileSync(dotGit, "utf8")) ?? current,
      };
    }
    if (dirname(current) === current) return undefined;
  }
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** The project name a folder gets by default: its name, spaces and colons as dashes. */
export function defaultProjectName(folder: string): string {
  return basename(folder).trim().replace(/[\s:]+/g, "-") || "root";
}

/**
 * The main repository's folder of the linked worktree at `root`, from the text
 * of its `.git` file (`gitdir: <main>/.git/worktrees/<name>`); undefined when
 * the file says otherwise.
 */
function worktreeMain(root: string, dotGitFile: string): string | undefined {
  const gitdir = dotGitFile.match(/^gitdir:\s*(.+)$/m)?.[1]?.trim();
  return (gitdir && resolve(root, gitdir).match(/^(.*)[\\/]\.git[\\/]worktrees[\\/]/)?.[1]) ||
    undefined;
}
