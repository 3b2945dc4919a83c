import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeIndex, type IndexReport } from "../../src/service/code_index.ts";
import { CodeWatch, CodeWatches } from "../../src/service/code_watch.ts";
import { Store } from "../../src/service/store.ts";
import { tempDir } from "../helpers.ts";

const FUNCTION = (name: string) =>
  `def ${name}(value):\n    # ${name} is long enough to be a chunk of its own in the index\n    return value\n`;

/** Polls `check` every 50 ms until it holds, for at most 10 s. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    if (check()) return;
    await new Promise((done) => setTimeout(done, 50));
  }
  assert.fail(`timed out waiting until ${what}`);
}

Deno.test("CodeWatch re-indexes what changes: new, edited (atomic save), renamed and deleted files, one run per burst", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  await Deno.mkdir(join(repo, "src"), { recursive: true });
  await Deno.mkdir(join(repo, "node_modules"));
  await Deno.writeTextFile(join(repo, "src", "a.py"), FUNCTION("alpha"));
  const store = await Store.open(join(tmp.path, "store"));
  const code = new CodeIndex(store);
  await code.index({ path: repo, project: "repo" });
  const reports: IndexReport[] = [];
  const watch = CodeWatch.start(code, repo, "repo", {
    onReport: (report) => reports.push(report),
    onError: (error) => assert.fail(error.message),
  }, 100);
  const files = async () => (await code.status("repo"))[0]!.files;
  try {
    // A burst: 50 new files, an atomic save of a.py (write a temporary file, rename it over).
    for (let i = 0; i < 50; i++) {
      await Deno.writeTextFile(join(repo, "src", `gen_${i}.py`), FUNCTION(`gen_${i}`));
    }
    await Deno.writeTextFile(join(repo, "src", ".a.py.swp"), FUNCTION("alpha_two"));
    await Deno.rename(join(repo, "src", ".a.py.swp"), join(repo, "src", "a.py"));
    await eventually(() => reports.some((r) => r.indexed >= 51), "the burst is indexed");
    assert.ok(reports.length < 10, `a few runs for 51 changes, not ${reports.length}`);
    assert.equal(await files(), 51);

    const before = reports.length;
    await Deno.writeTextFile(join(repo, "node_modules", "dep.js"), "module.exports = 1;\n");
    await Deno.rename(join(repo, "src", "gen_0.py"), join(repo, "src", "renamed.py"));
    await Deno.remove(join(repo, "src", "gen_1.py"));
    await eventually(() => reports.slice(before).some((r) => r.removed >= 2), "removals land");
    assert.equal(await files(), 50);
  } finally {
    await watch.stop();
    await store.close();
  }
});

Deno.test("CodeWatches keeps one watch per project and stops them all", async () => {
  await using tmp = await tempDir();
  const store = await Store.open(join(tmp.path, "store"));
  try {
    const watches = new CodeWatches(new CodeIndex(store));
    const handlers = { onReport: () => {}, onError: () => {} };
    assert.equal(watches.start(tmp.path, "p", handlers), true);
    assert.equal(watches.start(tmp.path, "p", handlers), false, "already watched");
    await watches.stopAll();
    assert.equal(watches.start(tmp.path, "p", handlers), true, "stopped, so it can start again");
    await watches.stopAll();
  } finally {
    await store.close();
  }
});
