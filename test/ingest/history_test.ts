import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { coChangesOf, headCommit, readCoChanges } from "../../src/ingest/code/history.ts";
import { tempDir } from "../helpers.ts";
import { gitCommit, gitInit, needsGit } from "./git_repo.ts";

Deno.test("coChangesOf() pairs files changed together twice, leaving sweeps and unindexed files out", () => {
  const sweep = Array.from({ length: 11 }, (_, i) => `src/f${i}.rs`);
  const pairs = coChangesOf(
    [
      ["src/app.rs", "src/main.rs", "CHANGELOG.md"],
      ["src/main.rs", "src/app.rs"],
      ["src/app.rs", "src/walk.rs"],
      ["src/app.rs", "src/main.rs", "src/options.rs"],
      sweep,
      sweep,
    ],
    (path) => path.startsWith("src/"),
  );
  // app and main changed together three times; options and walk only once each with app.
  assert.deepEqual(pairs, [
    { file: "src/app.rs", partner: "src/main.rs", commits: 3 },
    { file: "src/main.rs", partner: "src/app.rs", commits: 3 },
  ]);
});

Deno.test("coChangesOf() keeps a file's five most frequent partners", () => {
  const commits: string[][] = [];
  for (let partner = 1; partner <= 7; partner++) {
    // core.go changes with p1 seven times, p2 six times, … p7 once.
    for (let n = partner; n <= 7; n++) commits.push(["core.go", `p${partner}.go`]);
  }
  const core = coChangesOf(commits, () => true).filter((pair) => pair.file === "core.go");
  assert.deepEqual(
    core.map((pair) => [pair.partner, pair.commits]),
    [["p1.go", 7], ["p2.go", 6], ["p3.go", 5], ["p4.go", 4], ["p5.go", 3]],
  );
});

Deno.test({
  ...needsGit(
    "readCoChanges() reads a real repository's history as of a commit, paths relative to it",
  ),
  async fn() {
    await using tmp = await tempDir();
    const repo = join(tmp.path, "shop");
    await gitInit(repo);
    const write = async (path: string, text: string) => {
      await Deno.mkdir(dirname(join(repo, path)), { recursive: true });
      await Deno.writeTextFile(join(repo, path), text);
    };
    await write("src/cart.py", "a = 1\n");
    await write("src/pay.py", "b = 1\n");
    await gitCommit(repo, "first");
    await write("src/cart.py", "a = 2\n");
    await write("src/pay.py", "b = 2\n");
    await gitCommit(repo, "second");
    const before = await headCommit(repo);
    await write("src/cart.py", "a = 3\n");
    await write("src/pay.py", "b = 3\n");
    await write("src/ünïcode.py", "c = 3\n");
    await gitCommit(repo, "third");
    const head = (await headCommit(repo))!;
    assert.match(head, /^[0-9a-f]{40}$/);
    const history = await readCoChanges(repo, head, () => true);
    assert.equal(history?.commits, 3);
    assert.deepEqual(history?.pairs, [
      { file: "src/cart.py", partner: "src/pay.py", commits: 3 },
      { file: "src/pay.py", partner: "src/cart.py", commits: 3 },
    ]);
    // As of an older commit, later commits do not count.
    const then = await readCoChanges(repo, before!, () => true);
    assert.deepEqual(then?.pairs.map((pair) => pair.commits), [2, 2]);
  },
});

Deno.test({
  ...needsGit("headCommit() is undefined outside a repository and in one with no commit"),
  async fn() {
    await using tmp = await tempDir();
    assert.equal(await headCommit(tmp.path), undefined);
    await gitInit(join(tmp.path, "empty"));
    assert.equal(await headCommit(join(tmp.path, "empty")), undefined);
  },
});
