/**
 * Which files change together, read from a repository's history: a fix that
 * needs a new option touches the parser, the options and the place that uses
 * them, and the commits before it did too. Read with the `git` command (a
 * repository without it, or a folder outside one, simply has no history).
 * @module
 */

/** An indexed file, one of the files changed with it most often, and how many of the commits read changed both. */
export interface CoChange {
  file: string;
  partner: string;
  commits: number;
}

/** What a project's history says about its files, as of one commit. */
export interface CoChangeHistory {
  /** The commit the history was read from. */
  head: string;
  /** How many commits were read (the newest, merges left out). */
  commits: number;
  pairs: CoChange[];
}

/** Commits read, newest first. */
export const HISTORY_COMMITS = 2000;
/**
 * A commit that changes more indexed files than this is a sweep (a rename, a
 * reformat, a dependency bump): it says little about which files belong together.
 */
const MAX_FILES = 10;
/** Files changed together fewer times than this are not paired. */
const MIN_TOGETHER = 2;
/** Partners kept per file, the most frequent first. */
const PARTNERS = 5;

/**
 * For each file in `commits` (each the paths one commit changed) that
 * `indexed` holds, its five most frequent partners among the files changed
 * with it at least twice. Ordered by file, then by how often (most first).
 */
export function coChangesOf(
  commits: readonly (readonly string[])[],
  indexed: (path: string) => boolean,
): CoChange[] {
  const together = new Map<string, Map<string, number>>();
  const count = (file: string, partner: string) => {
    const partners = together.get(file) ?? new Map<string, number>();
    partners.set(partner, (partners.get(partner) ?? 0) + 1);
    together.set(file, partners);
  };
  for (const commit of commits) {
    const files = [...new Set(commit.filter(indexed))];
    if (files.length < 2 || files.length > MAX_FILES) continue;
    for (const file of files) {
      for (const partner of files) if (file !== partner) count(file, partner);
    }
  }
  return [...together.keys()].sort().flatMap((file) =>
    [...together.get(file)!]
      .filter(([, commits]) => commits >= MIN_TOGETHER)
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
      .slice(0, PARTNERS)
      .map(([partner, commits]) => ({ file, partner, commits }))
  );
}

/**
 * The commit checked out in the repository whose work tree is at `root`;
 * undefined when `git` is not installed or `root` holds no repository with a
 * commit.
 */
export async function headCommit(root: string): Promise<string | undefined> {
  return (await git(root, ["rev-parse", "--verify", "HEAD^{commit}"]))?.trim();
}

/** Whether the repository at `root` is a shallow clone (its history cut short). */
export async function isShallow(root: string): Promise<boolean> {
  return (await git(root, ["rev-parse", "--is-shallow-repository"]))?.trim() === "true";
}

/**
 * The history of the repository at `root` as of `head`: the last
 * {@linkcode HISTORY_COMMITS} commits' changed files (paths relative to
 * `root`), paired by {@linkcode coChangesOf}; undefined when git fails.
 */
export async function readCoChanges(
  root: string,
  head: string,
  indexed: (path: string) => boolean,
): Promise<CoChangeHistory | undefined> {
  const log = await git(root, [
    "log",
    "--no-merges",
    "--relative",
    "--name-only",
    "--format=format:%x1e",
    `-n${HISTORY_COMMITS}`,
    head,
  ]);
  if (log === undefined) return undefined;
  const commits = log.split("\x1e").slice(1).map((text) => text.split("\n").filter(Boolean));
  return { head, commits: commits.length, pairs: coChangesOf(commits, indexed) };
}

/** `git` run in `root`, its output; undefined when git is missing or fails. */
async function git(root: string, args: string[]): Promise<string | undefined> {
  try {
    const { success, stdout } = await new Deno.Command("git", {
      args: ["-C", root, "-c", "core.quotePath=false", ...args],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return success ? new TextDecoder().decode(stdout) : undefined;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}
