import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import type { StoredEvent } from "../../events/schema.ts";
import { CHUNKER_VERSION } from "../../src/ingest/code/source_file.ts";
import { CodeIndex } from "../../src/service/code_index.ts";
import { UserError } from "../../src/errors.ts";
import { Store } from "../../src/service/store.ts";
import { openCairn } from "../../src/service/cairn.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";
import { neighbourhood } from "../../src/recall/graph_neighbourhood.ts";
import { reportLines } from "../../src/ops/code_ops.ts";
import { statusLines } from "../../src/service/index_status.ts";
import { formatProjects, listProjects } from "../../src/service/project_list.ts";
import { collect, tempDir } from "../helpers.ts";
import { git, gitCommit, gitInit, needsGit } from "../ingest/git_repo.ts";
import { fileIndexed as indexedChunks } from "../projections/text_events.ts";
import { localTools } from "../../src/mcp/handlers.ts";

const FUNCTION = (name: string) =>
  `def ${name}(value):\n    # ${name} is long enough to be a chunk of its own in the index\n    return value\n`;

async function write(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), content);
  }
}

/** Events appended after `from`, as `type path` lines. */
async function eventsSince(store: Store, from: number): Promise<string[]> {
  const events: StoredEvent[] = await collect(store.log.read(from + 1));
  return events.map((event) =>
    "path" in event.data ? `${event.type} ${event.data.path}` : `${event.type}`
  );
}

Deno.test("CodeIndex.index() writes chunks once, then only what was edited, deleted or renamed", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "shop");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  await write(repo, {
    "src/cart.py": FUNCTION("add_item") + "\n" + FUNCTION("remove_item"),
    "src/pay.py": FUNCTION("charge"),
    "src/old_name.py": FUNCTION("legacy"),
    "README.md": "# Shop\nA shop.\n",
  });
  const store = await Store.open(join(tmp.path, "store"));
  try {
    const code = new CodeIndex(store);
    const first = await code.index({ path: join(repo, "src") });
    assert.equal(first.project, "shop");
    assert.equal(first.indexed, 3, "only the scanned folder");
    const all = await code.index({ path: repo });
    assert.deepEqual([all.indexed, all.unchanged, all.removed], [1, 3, 0]);
    const events: StoredEvent[] = await collect(store.log.read());
    const cart = events.find((e) => e.type === "file.indexed" && e.data.path === "src/cart.py");
    assert.ok(cart?.type === "file.indexed");
    assert.deepEqual(
      cart.data.chunks.map((c) => [c.name, c.kind, c.start_line, c.end_line]),
      [["add_item", "function", 1, 3], ["remove_item", "function", 5, 7]],
    );
    assert.equal(await store.blobs.get(cart.data.chunks[0]!.text), FUNCTION("add_item").trimEnd());

    const head = store.log.head;
    assert.equal((await code.index({ path: repo })).unchanged, 4);
    assert.deepEqual(await eventsSince(store, head), [], "nothing changed, nothing appended");

    await Deno.writeTextFile(
      join(repo, "src/pay.py"),
      FUNCTION("charge") + "\n" + FUNCTION("refund"),
    );
    await Deno.remove(join(repo, "README.md"));
    await Deno.rename(join(repo, "src/old_name.py"), join(repo, "src/new_name.py"));
    // Touched but not changed: the content hash keeps it out.
    const now = new Date(Date.now() + 5000);
    await Deno.utime(join(repo, "src/cart.py"), now, now);
    const head2 = store.log.head;
    const again = await code.index({ path: repo });
    assert.deepEqual([again.indexed, again.unchanged, again.removed], [2, 1, 2]);
    assert.deepEqual((await eventsSince(store, head2)).sort(), [
      "file.indexed src/new_name.py",
      "file.indexed src/pay.py",
      "file.removed README.md",
      "file.removed src/old_name.py",
    ]);

    const [status] = await code.status("shop");
    assert.equal(status!.files, 3);
    assert.equal(status!.chunks, 5);
    assert.equal(status!.lastRun?.removed, 2);
  } finally {
    await store.close();
  }
  // A new process reads what is indexed back from the log.
  const reopened = await Store.open(join(tmp.path, "store"));
  try {
    const report = await new CodeIndex(reopened).index({ path: repo });
    assert.deepEqual([report.indexed, report.unchanged, report.removed], [0, 3, 0]);
  } finally {
    await reopened.close();
  }
});

Deno.test("CodeIndex.index() chunks again the files an older chunker cut, even when unchanged", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "shop");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  await write(repo, { "cart.py": FUNCTION("add_item"), "pay.py": FUNCTION("charge") });
  const store = await Store.open(join(tmp.path, "store"));
  try {
    await new CodeIndex(store).index({ path: repo });
    const events: StoredEvent[] = await collect(store.log.read());
    const cart = events.find((e) => e.type === "file.indexed" && e.data.path === "cart.py");
    assert.ok(cart?.type === "file.indexed");
    assert.equal(cart.data.chunker, CHUNKER_VERSION);
    // What a cairn before chunker versions wrote: the same file, no version.
    const { chunker: _chunker, ...unversioned } = cart.data;
    await store.append([{ type: "file.indexed", v: 1, data: unversioned }]);

    const head = store.log.head;
    const report = await new CodeIndex(store).index({ path: repo });
    assert.deepEqual([report.indexed, report.unchanged], [1, 1]);
    const [again] = await collect<StoredEvent>(store.log.read(head + 1));
    assert.ok(again?.type === "file.indexed");
    assert.deepEqual([again.data.path, again.data.chunker], ["cart.py", CHUNKER_VERSION]);
    assert.equal((await new CodeIndex(store).index({ path: repo })).unchanged, 2);
  } finally {
    await store.close();
  }
});

Deno.test("CodeIndex.index() never writes a secret, and a newly ignored file leaves the index", async () => {
  await using tmp = await tempDir();
  await write(tmp.path, {
    ".env": "API_KEY=sk-live-123\n",
    "deploy.pem": "-----BEGIN PRIVATE KEY-----\n",
    "app.py": FUNCTION("main"),
    "notes.py": FUNCTION("scratch"),
  });
  await using storeDir = await tempDir();
  const store = await Store.open(storeDir.path);
  try {
    const code = new CodeIndex(store);
    const report = await code.index({ path: tmp.path, project: "app" });
    assert.equal(report.skippedByReason["may hold secrets"], 2);
    await Deno.writeTextFile(join(tmp.path, ".cairnignore"), "notes.py\n");
    const head = store.log.head;
    await code.index({ path: tmp.path, project: "app" });
    assert.deepEqual(await eventsSince(store, head), [
      "file.indexed .cairnignore",
      "file.removed notes.py",
    ]);
    const logged = JSON.stringify(await collect(store.log.read()));
    assert.ok(!logged.includes(".env") && !logged.includes("deploy.pem"));
    for await (const hash of store.blobs.list()) {
      assert.ok(!(await store.blobs.get(hash)).includes("sk-live"));
    }
  } finally {
    await store.close();
  }
});

Deno.test("CodeIndex.index() refuses a path that is missing or not a folder, writing nothing", async () => {
  await using tmp = await tempDir();
  await write(tmp.path, { "file.py": FUNCTION("f") });
  const store = await Store.open(join(tmp.path, "store"));
  try {
    const code = new CodeIndex(store);
    await assert.rejects(code.index({ path: join(tmp.path, "nope") }), UserError);
    await assert.rejects(
      code.index({ path: join(tmp.path, "file.py") }),
      (error: Error) => error instanceof UserError && /is not a folder/.test(error.message),
    );
    await assert.rejects(code.status("nope"), UserError);
    assert.equal(store.log.head, 0);
  } finally {
    await store.close();
  }
});

Deno.test("CodeIndex.index() runs of one repository at once take turns: the second finds the work done", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "shop");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  await write(repo, { "src/cart.py": FUNCTION("add_item"), "src/pay.py": FUNCTION("charge") });
  const store = await Store.open(join(tmp.path, "store"));
  try {
    const code = new CodeIndex(store);
    const [whole, part, again] = await Promise.all([
      code.index({ path: repo }),
      code.index({ path: join(repo, "src") }),
      code.index({ path: repo }),
    ]);
    assert.deepEqual([whole.indexed, part.indexed, again.indexed], [2, 0, 0]);
    assert.deepEqual([part.unchanged, again.unchanged], [2, 2]);
    const indexed = (await eventsSince(store, 0)).filter((line) => line.startsWith("file.indexed"));
    assert.deepEqual(indexed.sort(), ["file.indexed src/cart.py", "file.indexed src/pay.py"]);
  } finally {
    await store.close();
  }
});

Deno.test("CodeIndex.index() names a second repository with the same folder name apart", async () => {
  await using tmp = await tempDir();
  for (const owner of ["a", "b"]) {
    await Deno.mkdir(join(tmp.path, owner, "api", ".git"), { recursive: true });
    await write(join(tmp.path, owner, "api"), { "main.py": FUNCTION(`serve_${owner}`) });
  }
  const store = await Store.open(join(tmp.path, "store"));
  try {
    const code = new CodeIndex(store);
    assert.equal((await code.index({ path: join(tmp.path, "a", "api") })).project, "api");
    assert.equal((await code.index({ path: join(tmp.path, "b", "api") })).project, "api-2");
    assert.equal((await code.index({ path: join(tmp.path, "a", "api") })).project, "api");
  } finally {
    await store.close();
  }
});

Deno.test("CodeIndex.index() keeps ':' out of project names, which chunk ids separate with it", async () => {
  await using tmp = await tempDir();
  const folder = join(tmp.path, "web:api");
  await write(folder, { "main.py": FUNCTION("serve") });
  const store = await Store.open(join(tmp.path, "store"));
  try {
    const code = new CodeIndex(store);
    await assert.rejects(code.index({ path: folder, project: "web:api" }), /cannot contain ':'/);
    assert.equal(store.log.head, 0);
    assert.equal((await code.index({ path: folder })).project, "web-api");
  } finally {
    await store.close();
  }
});

Deno.test("CodeIndex.index() of a subfolder of a named project outside git updates that part only", async () => {
  await using tmp = await tempDir();
  const notes = join(tmp.path, "notes");
  await write(notes, { "top.py": FUNCTION("top"), "sub/inner.py": FUNCTION("inner") });
  const store = await Store.open(join(tmp.path, "store"));
  try {
    const code = new CodeIndex(store);
    await code.index({ path: notes, project: "notes" });
    await write(notes, { "sub/inner.py": FUNCTION("inner_edited") });
    await write(notes, { "sub/added.py": FUNCTION("added") });
    const from = store.log.head;
    const part = await code.index({ path: join(notes, "sub"), project: "notes" });
    assert.equal(part.root, notes);
    assert.deepEqual([part.indexed, part.removed], [2, 0]);
    assert.deepEqual(
      (await eventsSince(store, from)).filter((line) => line.startsWith("file.")).sort(),
      ["file.indexed sub/added.py", "file.indexed sub/inner.py"],
    );
    assert.equal((await code.status("notes"))[0]?.files, 3);
  } finally {
    await store.close();
  }
});

Deno.test("CodeIndex.index() keeps a named project in its folder while that folder is there, and moves it once it is gone", async () => {
  await using tmp = await tempDir();
  const first = join(tmp.path, "first", "notes");
  const second = join(tmp.path, "second", "notes");
  await write(first, { "top.py": FUNCTION("top"), "old.py": FUNCTION("old") });
  await write(second, { "top.py": FUNCTION("top") });
  const store = await Store.open(join(tmp.path, "store"));
  try {
    const code = new CodeIndex(store);
    await code.index({ path: first, project: "notes" });
    const head = store.log.head;
    await assert.rejects(
      code.index({ path: second, project: "notes" }),
      new RegExp(
        `project notes is the folder ${first}, which is still there; .*delete-project notes`,
      ),
    );
    assert.equal(store.log.head, head, "nothing written");
    assert.equal((await code.status("notes"))[0]?.files, 2);
    await Deno.remove(join(tmp.path, "first"), { recursive: true });
    const moved = await code.index({ path: second, project: "notes" });
    assert.equal(moved.root, second);
    assert.deepEqual(
      [moved.indexed, moved.unchanged, moved.removed],
      [0, 1, 1],
      "the same paths, old.py gone",
    );
  } finally {
    await store.close();
  }
});

Deno.test("a project name of any length and script gets files of bounded names, and bad names are refused", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  await Deno.mkdir(repo);
  await Deno.writeTextFile(join(repo, "a.py"), "def long_named():\n    return 1\n");
  const store = join(tmp.path, "store");
  const name = "é☃".repeat(100);
  let cairn = await openCairn(store, { embedder: new FakeEmbedder() });
  try {
    await cairn.code.index({ path: repo, project: name });
    await cairn.store.runner.settled();
    await assert.rejects(
      () => cairn.code.index({ path: repo, project: "bad\nname" }),
      /control characters/,
    );
    await assert.rejects(
      () => cairn.code.index({ path: repo, project: "\ud800" }),
      /broken Unicode/,
    );
  } finally {
    await cairn.close();
  }
  cairn = await openCairn(store, { embedder: new FakeEmbedder() });
  try {
    assert.equal(cairn.vectors.counts().code, 1);
    const [project] = await cairn.code.projects();
    assert.equal(project?.name, name);
  } finally {
    await cairn.close();
  }
});

Deno.test("CodeIndex.deleteProject() tells how many of the project's blobs are removed, as it goes", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "many");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  const files: Record<string, string> = {};
  for (let i = 0; i < 600; i++) files[`m${i}.py`] = FUNCTION(`handler_${i}`);
  await write(repo, files);
  const cairn = await openCairn(join(tmp.path, "store"), { embedder: new FakeEmbedder() });
  try {
    await cairn.code.index({ path: repo, project: "many" });
    const heard: Array<[number, number]> = [];
    await cairn.code.deleteProject("many", (removed, total) => heard.push([removed, total]));
    assert.deepEqual(heard, [[0, 600], [500, 600]]);
    assert.deepEqual(await Array.fromAsync(cairn.store.blobs.list()), []);
  } finally {
    await cairn.close();
  }
});

Deno.test({
  ...needsGit(
    "CodeIndex.index() reads which files change together from git, again only when the commit moves, and the walk follows them",
  ),
  async fn() {
    await using tmp = await tempDir();
    const repo = join(tmp.path, "finder");
    await gitInit(repo);
    const versions = ["one", "two", "three"];
    for (const version of versions) {
      await write(repo, {
        "src/cli.py": FUNCTION(`parse_${version}`),
        "src/walk.py": FUNCTION(`walk_${version}`),
        "src/unrelated.py": FUNCTION("unrelated"),
      });
      await gitCommit(repo, `add the ${version} option`);
    }
    const cairn = await openCairn(join(tmp.path, "store"), { embedder: new FakeEmbedder() });
    try {
      const first = await cairn.code.index({ path: repo });
      assert.deepEqual(first.history, { commits: 3, pairs: 1 });
      assert.ok(
        reportLines(first).includes(
          "history: 1 pair of files changed together in the last 3 commits",
        ),
      );
      const events: StoredEvent[] = await collect(cairn.store.log.read());
      const read = events.filter((event) => event.type === "project.history_read");
      assert.equal(read.length, 1);
      assert.ok(read[0]!.type === "project.history_read");
      assert.deepEqual(read[0]!.data.pairs, [
        { file: "src/cli.py", partner: "src/walk.py", commits: 3 },
        { file: "src/walk.py", partner: "src/cli.py", commits: 3 },
      ]);
      // From a chunk of cli.py, the walk reaches walk.py and its chunk, not unrelated.py.
      const { graph, codeFiles } = cairn.recall.deps;
      const cli = codeFiles!.chunksOf("finder\0src/cli.py");
      const edges = await neighbourhood(graph, { code: cli }, ["code"], codeFiles);
      const reached = new Set(edges.map(([, b]) => b));
      assert.ok(reached.has("file:finder\0src/walk.py"));
      assert.ok(
        codeFiles!.chunksOf("finder\0src/walk.py").every((id) => reached.has(`code:${id}`)),
      );
      assert.ok(![...reached].some((node) => node.includes("unrelated")));

      const again = await cairn.code.index({ path: repo });
      assert.equal(again.history, undefined, "same commit, same files: not read again");
      // An edit (a watched folder's save) changes no pair; a new file may.
      await write(repo, { "src/cli.py": FUNCTION("parse_edited") });
      assert.equal((await cairn.code.index({ path: repo })).history, undefined);
      await write(repo, { "src/new.py": FUNCTION("fresh") });
      assert.deepEqual((await cairn.code.index({ path: repo })).history, { commits: 3, pairs: 1 });
      await gitCommit(repo, "four");
      const moved = await cairn.code.index({ path: repo });
      assert.deepEqual(moved.history, { commits: 4, pairs: 1 });
      // The status and the project list say what the history held, and at which commit.
      const [status] = await cairn.code.status("finder");
      const head = (await git(repo, "rev-parse", "HEAD")).trim();
      assert.deepEqual(status!.history, { head, commits: 4, pairs: 1 });
      assert.ok(
        statusLines(status!).includes(
          `  history: 1 pair of files changed together in the last 4 commits (at ${
            head.slice(0, 10)
          })`,
        ),
      );
      assert.match(
        formatProjects(await listProjects(cairn.code)),
        /: 4 files, \d+ chunks, 1 pair of files changed together in git, last indexed/,
      );
      // A shallow clone holds a history cut short, and the report says how to read it all.
      const shallow = join(tmp.path, "shallow");
      await git(tmp.path, "clone", "--quiet", "--depth", "1", `file://${repo}`, shallow);
      const cut = await cairn.code.index({ path: shallow, project: "shallow" });
      assert.deepEqual(cut.history, { commits: 1, pairs: 0, shallow: true });
      assert.ok(
        reportLines(cut).includes(
          "history: 0 pairs of files changed together in the last 1 commit; " +
            "the clone is shallow: `git fetch --unshallow` gives it all",
        ),
      );
    } finally {
      await cairn.close();
    }
  },
});

Deno.test("CodeIndex.index() logs the project's own code first, and a table's first chunk alone gets a vector", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "shop");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  const rows = (word: string) =>
    Array.from({ length: 400 }, (_, i) => `  "${word}_${i}": "#${i}",`).join("\n");
  const paths = Array.from(
    { length: 200 },
    (_, i) => `  /items/${i}:\n    get: {summary: item ${i}}`,
  );
  await write(repo, {
    "a_docs/guide.md": "# Guide\nHow to buy.\n",
    "colors.json": `{\n${rows("colour")}\n  "fuchsiaviolet": "#f0f"\n}\n`,
    "openapi.yaml": `openapi: 3.0.0\npaths:\n${paths.join("\n")}\n`,
    "src/cart.py": FUNCTION("add_item"),
    "tests/fixtures/prices.json": `{\n${rows("price")}\n}\n`,
    "tests/test_cart.py": FUNCTION("test_add_item"),
    "zz/pay.py": FUNCTION("charge"),
  });
  const embedder = new FakeEmbedder();
  const cairn = await openCairn(join(tmp.path, "store"), { embedder });
  try {
    await cairn.code.index({ path: repo, project: "shop" });
    await cairn.store.runner.settled();
    const events: StoredEvent[] = await collect(cairn.store.log.read());
    const indexed = events.flatMap((e) => e.type === "file.indexed" ? [e.data] : []);
    assert.deepEqual(indexed.map((file) => file.path), [
      "src/cart.py",
      "zz/pay.py",
      "a_docs/guide.md",
      "colors.json",
      "openapi.yaml",
      "tests/fixtures/prices.json",
      "tests/test_cart.py",
    ]);
    const file = (path: string) => indexed.find((file) => file.path === path)!;
    for (const path of ["colors.json", "openapi.yaml", "tests/fixtures/prices.json"]) {
      assert.ok(file(path).chunks.length > 2, `${path} is cut in several chunks`);
    }
    assert.equal(file("colors.json").embedded_chunks, 1);
    assert.equal(file("tests/fixtures/prices.json").embedded_chunks, 1, "a table anywhere");
    assert.equal(file("openapi.yaml").embedded_chunks, undefined, "a spec keeps every vector");
    assert.equal(file("src/cart.py").embedded_chunks, undefined);
    assert.equal(embedder.embedded.filter((text) => text.startsWith("colors.json\n")).length, 1);
    assert.equal(
      cairn.vectors.counts().code,
      4 + 2 + file("openapi.yaml").chunks.length,
      "a vector for each chunk of the code, the guide and the spec, one for each table",
    );
    const answer = await cairn.recall.run({
      query: "fuchsiaviolet",
      project: null,
      sources: ["code"],
      limit: 3,
      mode: "hybrid",
    });
    const hit = answer.items.find((item) =>
      item.type === "code" && item.code.path === "colors.json"
    );
    assert.ok(hit?.type === "code", "the table is found by a word of its last chunk");
    assert.ok(
      hit.code.start_line > file("colors.json").chunks[0]!.end_line,
      "the hit is the chunk holding the word, which has no vector",
    );
    const wordsOnly = file("colors.json").chunks.length - 1 +
      file("tests/fixtures/prices.json").chunks.length - 1;
    const status = await localTools(cairn)("store_status", {}, { cwd: repo, roots: [repo] });
    assert.match(
      status.content[0]!.text,
      new RegExp(
        `\\(${wordsOnly} of them searched by words only: tables past their first chunk\\)`,
      ),
    );
  } finally {
    await cairn.close();
  }
});

Deno.test("a table indexed again keeps the vector of its first chunk only, however it grows or shrinks", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "shop");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  const table = (rows: number) =>
    `{\n${Array.from({ length: rows }, (_, i) => `  "colour_${i}": "#${i}",`).join("\n")}\n}\n`;
  const cairn = await openCairn(join(tmp.path, "store"), { embedder: new FakeEmbedder() });
  try {
    // As an older cairn logged it: every chunk of the table embedded.
    await cairn.store.append([
      { type: "project.registered", v: 1, data: { project: "shop", root: repo } },
      await indexedChunks(cairn.store.blobs, "shop", "colors.json", [
        { id: "shop:colors.json:1-2", name: "colors.json", text: "{" },
        { id: "shop:colors.json:3-4", name: "colors.json", text: '"red": 1' },
        { id: "shop:colors.json:5-6", name: "colors.json", text: "}" },
      ]),
    ]);
    await cairn.store.runner.settled();
    assert.equal(cairn.vectors.counts().code, 3);
    const vectorsAfter = async (rows: number) => {
      await write(repo, { "colors.json": table(rows) });
      await cairn.code.index({ path: repo, project: "shop" });
      await cairn.store.runner.settled();
      return cairn.vectors.counts().code;
    };
    assert.equal(await vectorsAfter(400), 1, "indexed again, the table keeps one vector");
    assert.equal(await vectorsAfter(3), 1, "shrunk to one chunk");
    assert.equal(await vectorsAfter(800), 1, "grown to many again");
  } finally {
    await cairn.close();
  }
});

Deno.test("a folder indexed already is that project: through a link or without its name, and a second name is refused", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  await write(repo, { "a.py": "def shared():\n    return 1\n" });
  const link = join(tmp.path, "link");
  await Deno.symlink(repo, link);
  const cairn = await openCairn(join(tmp.path, "store"), { embedder: new FakeEmbedder() });
  try {
    await cairn.code.index({ path: repo, project: "api" });
    assert.equal((await cairn.code.index({ path: repo })).project, "api", "without --project");
    assert.equal((await cairn.code.index({ path: link })).project, "api", "through a link");
    await assert.rejects(
      () => cairn.code.index({ path: link, project: "other" }),
      (error: Error) =>
        error instanceof UserError &&
        error.message.startsWith(`${repo} is indexed already, as project api: `) &&
        error.message.includes("`cairn delete-project api`"),
    );
    assert.deepEqual((await cairn.code.projects()).map((p) => p.name), ["api"]);
  } finally {
    await cairn.close();
  }
});

Deno.test("an index run ends at its next batch once the store's owner stops, and says how to go on", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  await write(repo, { "a.py": "def one():\n    return 1\n" });
  const cairn = await openCairn(join(tmp.path, "store"), { embedder: new FakeEmbedder() });
  try {
    cairn.store.interruptWork();
    await assert.rejects(
      () => cairn.code.index({ path: repo }),
      (error: Error) =>
        error instanceof UserError &&
        error.message ===
          `the store's owner is stopping: 0 of 1 files of repo checked; \`cairn index ${repo}\` ` +
            "goes on from there",
    );
  } finally {
    await cairn.close();
  }
});
