/**
 * Work trees written from a bare repository without `git checkout`: fetched
 * snapshots lack their largest blobs, so a checkout of some commits fails.
 * The first commit is written whole; moving to the next rewrites only the
 * files that differ, so unchanged files keep their modification times as in
 * a real checkout. To git the tree is a checkout of the commit (`git log` in
 * it reads the history up to it, as `cairn index` does): its `.git` is a
 * repository of its own that borrows the mirror's objects, its HEAD the commit.
 * @module
 */
import { dirname, join } from "node:path";

interface TreeEntry {
  mode: string;
  sha: string;
  path: string;
}

/** What writing or moving a tree did. */
export interface TreeChange {
  written: number;
  removed: number;
  /** Blobs the snapshot does not hold: their files are left out. */
  missing: number;
}

/** Writes the tree of `commit` into the empty folder `dest`, a checkout of it to git. */
export async function writeTree(gitDir: string, commit: string, dest: string): Promise<TreeChange> {
  const entries = parseLsTree(await git(gitDir, ["ls-tree", "-r", "-z", commit]));
  const change = await writeBlobs(gitDir, entries, dest, 0);
  await checkoutOf(gitDir, commit, dest);
  return change;
}

/** Turns `dest`, holding the tree of `from`, into the tree of `to`. */
export async function moveTree(
  gitDir: string,
  from: string,
  to: string,
  dest: string,
): Promise<TreeChange> {
  const diff = new TextDecoder().decode(
    await git(gitDir, ["diff", "--no-renames", "--name-status", "-z", from, to]),
  ).split("\0");
  const changed = new Set<string>();
  let removed = 0;
  for (let i = 0; i + 1 < diff.length; i += 2) {
    const [status, path] = [diff[i]!, diff[i + 1]!];
    if (status === "D") {
      await Deno.remove(join(dest, path)).catch(() => {});
      removed++;
    } else changed.add(path);
  }
  const all = parseLsTree(await git(gitDir, ["ls-tree", "-r", "-z", to]));
  const change = await writeBlobs(
    gitDir,
    all.filter((entry) => changed.has(entry.path)),
    dest,
    removed,
  );
  await checkoutOf(gitDir, to, dest);
  return change;
}

/**
 * Makes `dest` a checkout of `commit` to git: its `.git` (made when missing,
 * as in a tree written before trees were checkouts) borrows the objects of
 * `gitDir`, and its HEAD is `commit` (a commit or a tag of `gitDir`).
 */
async function checkoutOf(gitDir: string, commit: string, dest: string): Promise<void> {
  const own = join(dest, ".git");
  await git(own, ["init", "--quiet"]);
  await Deno.writeTextFile(
    join(own, "objects", "info", "alternates"),
    `${join(gitDir, "objects")}\n`,
  );
  // A tag (`v8.2.0`) is named in `gitDir` only: the new checkout has no refs to read it by.
  const sha = new TextDecoder().decode(
    await git(gitDir, ["rev-parse", "--verify", `${commit}^{commit}`]),
  ).trim();
  await git(own, ["update-ref", "--no-deref", "HEAD", sha]);
}

/** Seconds since the epoch at which `commit` was made. */
export async function commitTime(gitDir: string, commit: string): Promise<number> {
  return Number(
    new TextDecoder().decode(await git(gitDir, ["show", "-s", "--format=%ct", commit])),
  );
}

function parseLsTree(output: Uint8Array): TreeEntry[] {
  return new TextDecoder().decode(output).split("\0").filter(Boolean).flatMap((line) => {
    const tab = line.indexOf("\t");
    const [mode, type, sha] = line.slice(0, tab).split(" ");
    // Only regular files: no submodules, no symbolic links.
    if (type !== "blob" || mode === "120000") return [];
    return [{ mode: mode!, sha: sha!, path: line.slice(tab + 1) }];
  });
}

async function writeBlobs(
  gitDir: string,
  entries: TreeEntry[],
  dest: string,
  removed: number,
): Promise<TreeChange> {
  const child = new Deno.Command("git", {
    args: ["--git-dir", gitDir, "cat-file", "--batch"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const feeding = (async () => {
    for (const entry of entries) await writer.write(new TextEncoder().encode(`${entry.sha}\n`));
    await writer.close();
  })();
  const reader = new BufferedReader(child.stdout.getReader());
  let written = 0;
  let missing = 0;
  for (const entry of entries) {
    const header = new TextDecoder().decode(await reader.readLine()).split(" ");
    if (header[1] === "missing") {
      await Deno.remove(join(dest, entry.path)).catch(() => {});
      missing++;
      continue;
    }
    const body = await reader.read(Number(header[2]) + 1);
    const path = join(dest, entry.path);
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeFile(path, body.subarray(0, body.length - 1), {
      mode: entry.mode === "100755" ? 0o755 : 0o644,
    });
    written++;
  }
  await feeding;
  await reader.cancel();
  await child.status;
  return { written, removed, missing };
}

/** What `git --git-dir GITDIR ARGS...` wrote; its error, naming the repository, if it failed. */
export async function git(gitDir: string, args: string[]): Promise<Uint8Array> {
  const output = await new Deno.Command("git", {
    args: ["--git-dir", gitDir, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `git ${args.join(" ")} in ${gitDir}: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
  return output.stdout;
}

/** Reads lines and exact byte counts from a stream. */
class BufferedReader {
  #buffer = new Uint8Array(0);

  constructor(private readonly source: ReadableStreamDefaultReader<Uint8Array>) {}

  async readLine(): Promise<Uint8Array> {
    for (;;) {
      const newline = this.#buffer.indexOf(10);
      if (newline >= 0) return this.#take(newline + 1).subarray(0, newline);
      await this.#fill();
    }
  }

  async read(count: number): Promise<Uint8Array> {
    while (this.#buffer.length < count) await this.#fill();
    return this.#take(count);
  }

  async cancel(): Promise<void> {
    await this.source.cancel();
  }

  async #fill(): Promise<void> {
    const { value, done } = await this.source.read();
    if (done) throw new Error("git cat-file ended early");
    const joined = new Uint8Array(this.#buffer.length + value.length);
    joined.set(this.#buffer);
    joined.set(value, this.#buffer.length);
    this.#buffer = joined;
  }

  #take(count: number): Uint8Array {
    const taken = this.#buffer.slice(0, count);
    this.#buffer = this.#buffer.subarray(count);
    return taken;
  }
}
