import assert from "node:assert/strict";
import { join } from "node:path";
import { mineRepository, type RepoSpec } from "../../bench/mine_issues.ts";
import {
  cleanQuery,
  isCommentOnly,
  isFixMessage,
  pathKind,
  pythonSpans,
  seededPick,
} from "../../bench/mined_commits.ts";
import { patchFiles } from "../../bench/mswe_issues.ts";
import { tempDir } from "../helpers.ts";

const SPEC: RepoSpec = { repo: "example/app", language: "python" };
const OPTIONS = { perRepo: 10, seed: "28", minWords: 15, maxSourceFiles: 5 };

const APP = `import os


class App:
    name = "app"

    def run(self, path):
        text = open(path).read()
        return text.split()
`;

const LONG_FIX = "Fix #12: App crashes when the configuration file is empty\n\n" +
  "Running the app with an empty configuration file in pkg/app.py raised an error " +
  "instead of starting with the defaults, see https://github.com/example/app/issues/12 " +
  "for the report.\n\nSigned-off-by: Ann <ann@example.org>\n";

async function git(dir: string, ...args: string[]): Promise<string> {
  const output = await new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@example.org", ...args],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(output.success, new TextDecoder().decode(output.stderr));
  return new TextDecoder().decode(output.stdout).trim();
}

async function commit(dir: string, message: string, files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(dir, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir, path), text);
  }
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", message);
  return await git(dir, "rev-parse", "HEAD");
}

/** A repository with one qualifying fix among commits each rule leaves out. */
async function history(dir: string) {
  await git(dir, "init", "-q");
  const base = await commit(dir, "Start", {
    "pkg/app.py": APP,
    "tests/test_app.py": "def test_run():\n    pass\n",
    "README.md": "# app\n",
  });
  const fix = await commit(dir, LONG_FIX, {
    "pkg/app.py": APP.replace("return text.split()", "return text.split() or []"),
    "tests/test_app.py": "def test_run():\n    assert True\n",
  });
  const words = "because the words of this message say what was wrong in some detail";
  await commit(dir, `Fix typo in the README ${words}`, { "README.md": "# App\n" });
  await commit(dir, `Fix #13: the test of run was flaky ${words}`, {
    "tests/test_app.py": "def test_run():\n    assert 1\n",
  });
  await commit(dir, "Fix #14: empty paths", {
    "pkg/app.py": APP.replace("or []", "or list()"),
  });
  await commit(dir, `Fix #15: explain the reading of the file ${words}`, {
    "pkg/app.py": APP.replace("or []", "or list()").replace(
      "    def run",
      "    # Reads.\n    def run",
    ),
  });
  return { base, fix };
}

Deno.test("cleanQuery() strips references, URLs, trailers and file names, keeps words", () => {
  const query = cleanQuery(LONG_FIX, ["pkg/app.py", "tests/test_app.py"]);
  assert.deepEqual(
    query,
    "App crashes when the configuration file is empty\n\n" +
      "Running the app with an empty configuration file in raised an error " +
      "instead of starting with the defaults, for the report.",
  );
  assert.deepEqual(
    cleanQuery("fix(cli): handle `src/cli.rs` and cli::Opts", ["src/cli.rs"]),
    "fix: handle and",
  );
  assert.deepEqual(
    cleanQuery("Fix client.send in httpx._client", ["httpx/_client.py"]),
    "Fix client.send in",
  );
});

Deno.test("isFixMessage() takes fix references and fix subjects, not housekeeping or reverts", () => {
  assert(isFixMessage("Handle empty files\n\nCloses #4"));
  assert(isFixMessage("fix(parser): handle empty files"));
  assert(isFixMessage("Fixed crash on empty input"));
  assert(!isFixMessage("Fix typo in docs"));
  assert(!isFixMessage('Revert "Fix #3"'));
  assert(!isFixMessage("Add a prefix option"));
});

Deno.test("pathKind() tells product source from tests, docs and tooling", () => {
  assert.deepEqual(pathKind("src/cli.rs"), "source");
  assert.deepEqual(pathKind("lib/router/index.js"), "source");
  assert.deepEqual(pathKind("tests/tests.rs"), "test");
  assert.deepEqual(pathKind("src/parser_test.go"), "test");
  assert.deepEqual(pathKind("src/a.spec.ts"), "test");
  assert.deepEqual(pathKind("docs/conf.py"), "other");
  assert.deepEqual(pathKind("rollup.config.js"), "other");
  assert.deepEqual(pathKind("deno/lib/types.ts"), "other");
  assert.deepEqual(pathKind("CHANGELOG.md"), "other");
});

Deno.test("pythonSpans() names the enclosing definitions by indentation", () => {
  assert.deepEqual(pythonSpans(APP, [8]), ["App.run"]);
  assert.deepEqual(pythonSpans(APP, [7, 9]), ["App.run"]);
  assert.deepEqual(pythonSpans(APP, [1]), []);
  assert.deepEqual(pythonSpans(APP, [5]), ["App"]);
  const nested =
    "class A:\n    def f(self):\n        def g():\n            return 1\n        return g\n";
  assert.deepEqual(pythonSpans(nested, [4]), ["A.f"]);
});

Deno.test("isCommentOnly() is true only when every changed line is blank or a comment", () => {
  assert(isCommentOnly("--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-// old\n+// new\n+\n"));
  assert(!isCommentOnly("--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-x := 1\n+x := 2\n"));
});

Deno.test("seededPick() gives the same choice for the same seed", () => {
  const items = [..."abcdefghij"];
  assert.deepEqual(seededPick(items, 4, "28:x"), seededPick(items, 4, "28:x"));
  assert.deepEqual(new Set(seededPick(items, 10, "1")).size, 10);
});

Deno.test("patchFiles() lists the files a unified patch changes", () => {
  const patch = "diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n" +
    "diff --git a/README.md b/README.md\n";
  assert.deepEqual(patchFiles(patch), ["src/a.rs", "README.md"]);
});

Deno.test("mineRepository() keeps the one fixing commit every rule lets through", async () => {
  await using temp = await tempDir("cairn-mine-test-");
  const dir = temp.path;
  const { base, fix } = await history(dir);
  const { instances, report } = await mineRepository(join(dir, ".git"), SPEC, OPTIONS);
  assert.deepEqual(report.fixCandidates, 1);
  assert.deepEqual(instances.length, 1);
  const [instance] = instances;
  assert.deepEqual(instance!.base_commit, base);
  assert.deepEqual(instance!.fix_commit, fix);
  assert.deepEqual(instance!.source, "fix-commit");
  assert.deepEqual(instance!.gold_files, ["pkg/app.py"]);
  assert.deepEqual(instance!.gold_spans, { "pkg/app.py": ["App.run"] });
  for (const leak of ["#12", "pkg/app.py", "https", "Signed-off-by", "ann@"]) {
    assert(!instance!.query.includes(leak), `query still holds ${leak}`);
  }
});

Deno.test("mineRepository() takes a Multi-SWE-bench issue first and drops the commit that fixed it", async () => {
  await using temp = await tempDir("cairn-mine-test-");
  const dir = temp.path;
  const { base } = await history(dir);
  const record = {
    org: "example",
    repo: "app",
    number: 20,
    base: { sha: base },
    resolved_issues: [{ number: 12, title: "Empty config crashes", body: "It raises." }],
    fix_patch: "diff --git a/pkg/app.py b/pkg/app.py\n--- a/pkg/app.py\n+++ b/pkg/app.py\n" +
      "@@ -9 +9 @@ class App:\n-        return text.split()\n+        return text.split() or []\n",
  };
  const { instances } = await mineRepository(
    join(dir, ".git"),
    SPEC,
    OPTIONS,
    JSON.stringify(record) + "\nversion https://git-lfs.github.com/spec/v1\n",
  );
  assert.deepEqual(instances.map((i) => [i.id, i.source, i.query]), [
    ["example__app-20", "multi-swe-bench", "Empty config crashes\nIt raises."],
  ]);
  assert.deepEqual(instances[0]!.gold_spans, { "pkg/app.py": ["App.run"] });
});
