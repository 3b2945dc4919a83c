import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeIndex, type IndexReport } from "../../src/service/code_index.ts";
import { CodeWatch, CodeWatches, watchedPath } from "../../src/service/code_watch.ts";
import { Store } from "../../src/service/store.ts";
import { tempDir } from "../helpers.ts";

const FUNCTION = (name: string) =>
  `def ${name}(value):\n    # ${name} is long enough to be a chunk of its own in the index\n    return value\n`;

/** Polls `check` every 50 ms until it holds, for at most 20 s. */
async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    if (await check()) return;
    await new Promise((done) => setTimeout(done, 50));
  }
  assert.fail(`timed out waiting until ${what}`);
}

/** The paths a project's index holds, with their content hashes, as the log tells it. */
async function indexed(store: Store, project: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const event of store.log.read()) {
    if (event.type === "file.indexed" && event.data.project === project) {
      files.set(event.data.path, event.data.hash);
    }
    if (event.type === "file.removed" && event.data.project === project) {
      files.delete(event.data.path);
    }
  }
  return files;
}

/** A folder `repo` with `a.py`, indexed as "repo" in a store (in `storeDir`, default beside it), and a watch of it. */
async function watched(tmp: string, quietMs?: number, storeDir = join(tmp, "store")) {
  const repo = join(tmp, "repo");
  await Deno.mkdir(join(repo, "src"), { recursive: true });
  await Deno.writeTextFile(join(repo, "src", "a.py"), FUNCTION("alpha"));
  const store = await Store.open(storeDir);
  const code = new CodeIndex(store);
  await code.index({ path: repo, project: "repo" });
  const reports: Array<{ report: IndexReport; changedPaths: number }> = [];
  const watch = CodeWatch.start(code, repo, "repo", {
    onReport: (report, changedPaths) => reports.push({ report, changedPaths }),
    onError: (error) => assert.fail(error.message),
  }, quietMs);
  const paths = async () => [...(await indexed(store, "repo")).keys()].sort();
  return {
    repo,
    store,
    reports,
    paths,
    watch,
    [Symbol.asyncDispose]: async () => {
      await watch.stop();
      await store.close();
    },
  };
}

Deno.test("CodeWatch follows a new, an edited, a renamed and a deleted file", async () => {
  await using tmp = await tempDir();
  await using w = await watched(tmp.path, 100);
  const src = join(w.repo, "src");
  await Deno.writeTextFile(join(src, "b.py"), FUNCTION("beta"));
  await eventually(async () => (await w.paths()).includes("src/b.py"), "b.py is indexed");

  const before = (await indexed(w.store, "repo")).get("src/a.py");
  await Deno.writeTextFile(join(src, "a.py"), FUNCTION("alpha_two"));
  await eventually(
    async () => (await indexed(w.store, "repo")).get("src/a.py") !== before,
    "the edit of a.py is indexed",
  );

  await Deno.rename(join(src, "b.py"), join(src, "c.py"));
  await eventually(
    async () => (await w.paths()).join() === "src/a.py,src/c.py",
    "b.py renamed to c.py",
  );

  await Deno.remove(join(src, "c.py"));
  await eventually(async () => (await w.paths()).join() === "src/a.py", "c.py leaves the index");
});

Deno.test("CodeWatch takes an editor's atomic save (write a temporary file, rename it over) as one re-index", async () => {
  await using tmp = await tempDir();
  await using w = await watched(tmp.path);
  await Deno.writeTextFile(join(w.repo, "src", ".a.py.swp"), FUNCTION("alpha_saved"));
  await Deno.rename(join(w.repo, "src", ".a.py.swp"), join(w.repo, "src", "a.py"));
  await eventually(() => w.reports.length > 0, "the save is indexed");
  await w.watch.stop();
  assert.equal(w.reports.length, 1, "one run");
  assert.equal(w.reports[0]!.report.indexed, 1);
  assert.equal(w.reports[0]!.report.removed, 0, "the temporary file never reached the index");
  assert.deepEqual(await w.paths(), ["src/a.py"]);
});

Deno.test("CodeWatch indexes a burst of 500 written files in one or a few runs", async () => {
  await using tmp = await tempDir();
  await using w = await watched(tmp.path);
  for (let i = 0; i < 500; i++) {
    const dir = join(w.repo, "src", `pkg${i % 10}`);
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(join(dir, `gen_${i}.py`), FUNCTION(`gen_${i}`));
  }
  await eventually(async () => (await w.paths()).length === 501, "the burst is indexed");
  await w.watch.stop();
  assert.ok(w.reports.length <= 3, `a few runs for 500 files, not ${w.reports.length}`);
  assert.equal(w.reports.reduce((sum, { report }) => sum + report.indexed, 0), 500);
});

Deno.test("CodeWatch starts no re-index for changes in VCS, dependency and build folders, nor in its own store inside the folder", async () => {
  await using tmp = await tempDir();
  await using w = await watched(tmp.path, 100, join(tmp.path, "repo", ".cairn"));
  for (const dir of [".git", "node_modules/left-pad", "build"]) {
    await Deno.mkdir(join(w.repo, dir), { recursive: true });
    await Deno.writeTextFile(join(w.repo, dir, "noise.js"), "module.exports = 1;\n");
  }
  await Deno.writeTextFile(join(w.repo, "src", "b.py"), FUNCTION("beta"));
  await eventually(() => w.reports.length === 1, "b.py is indexed");
  // The run wrote to the store; had that counted, runs would follow each other for ever.
  await Deno.writeTextFile(join(w.repo, "src", "c.py"), FUNCTION("gamma"));
  await eventually(() => w.reports.length >= 2, "c.py is indexed");
  await w.watch.stop();
  assert.deepEqual(w.reports.map(({ changedPaths }) => changedPaths), [1, 1]);
  assert.deepEqual(
    await w.paths(),
    ["src/a.py", "src/b.py", "src/c.py"],
    "the store is not indexed",
  );
});

Deno.test("watchedPath() leaves out VCS, dependency and build folders, and the store wherever it is", async () => {
  await using tmp = await tempDir();
  const root = join(tmp.path, "repo");
  await Deno.mkdir(join(root, ".cairn"), { recursive: true });
  const inside = watchedPath(root, join(root, ".cairn"));
  assert.equal(inside(join(root, "src", "a.py")), true);
  assert.equal(inside(join(root, ".cairnignore")), true);
  for (const path of [".git/index", "node_modules/x/y.js", "src/build/out.js", ".cairn/LOCK"]) {
    assert.equal(inside(join(root, path)), false, path);
  }
  const outside = watchedPath(root, tmp.path);
  assert.equal(outside(join(root, ".cairn", "LOCK")), true, "the store is elsewhere");
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
