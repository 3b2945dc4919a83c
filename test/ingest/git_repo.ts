/**
 * Real git repositories for tests: created, committed to, and checked for,
 * with an identity of their own and no user or system configuration read.
 * @module
 */

const ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "cairn test",
  GIT_AUTHOR_EMAIL: "test@example.invalid",
  GIT_COMMITTER_NAME: "cairn test",
  GIT_COMMITTER_EMAIL: "test@example.invalid",
};

function gitRuns(): boolean {
  try {
    return new Deno.Command("git", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

const HAS_GIT = gitRuns();

/**
 * A test that needs the `git` command: `name` as is where git runs, else
 * skipped, its name saying why.
 */
export function needsGit(name: string): { name: string; ignore: boolean } {
  return HAS_GIT
    ? { name, ignore: false }
    : { name: `${name} (skipped: the git command is absent; apt-get install git)`, ignore: true };
}

/** Runs `git` in `dir`; throws with git's message when it fails. */
export async function git(dir: string, ...args: string[]): Promise<string> {
  const { success, stdout, stderr } = await new Deno.Command("git", {
    args: ["-C", dir, ...args],
    env: ENV,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
  return new TextDecoder().decode(stdout);
}

/** A new repository in `dir` (created), on branch `main`. */
export async function gitInit(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await git(dir, "init", "--quiet", "--initial-branch=main");
}

/** Commits everything in the work tree of `dir`. */
export async function gitCommit(dir: string, message: string): Promise<void> {
  await git(dir, "add", "--all");
  await git(dir, "commit", "--quiet", "--no-gpg-sign", "-m", message);
}
