import assert from "node:assert/strict";
import {
  askedKinds,
  isChangelogPath,
  isDataPath,
  isDocumentationPath,
  isExamplePath,
  isTestPath,
  isToolingPath,
  kindsOf,
  LOWERED_KIND_NAMES,
} from "../../src/recall/path_priors.ts";

Deno.test("isTestPath() knows test folders and each ecosystem's test file names", () => {
  for (
    const path of [
      "tests/test_models.py",
      "src/_pytest/testing/helpers.py",
      "testing/python/metafunc.py",
      "requests/test_utils.py",
      "conftest.py",
      "pkg/server/handler_test.go",
      "spec/models/user_spec.rb",
      "web/src/app.test.tsx",
      "web/src/__tests__/app.ts",
      "lib/api.spec.js",
      "src/main/java/org/shop/CartTest.java",
      "Shop.Tests/CartTests.cs",
      "internal/parse/testdata/broken.go",
      "test/fixtures/app.js",
      "src/__mocks__/fs.ts",
      "src/parser/tests.rs",
    ]
  ) assert.ok(isTestPath(path), path);
  for (
    const path of [
      "requests/models.py",
      "src/_pytest/python_api.py",
      "src/attestation.ts",
      "src/contest/Contest.java",
      "docs/testing.md",
      "src/latest.py",
      "lib/inspect.js",
      "src/contests.rs",
      "src/fixture_loader.py",
    ]
  ) assert.ok(!isTestPath(path), path);
});

Deno.test("isChangelogPath() knows changelogs, release notes and news fragments, never code", () => {
  for (
    const path of [
      "CHANGES.rst",
      "CHANGELOG.md",
      "HISTORY.rst",
      "NEWS",
      "docs/release-notes.md",
      "changelog/1234.bugfix.rst",
      "docs/changes/13.feature.rst",
      "newsfragments/99.removal.txt",
    ]
  ) assert.ok(isChangelogPath(path), path);
  for (
    const path of [
      "src/changes.py",
      "lib/history.ts",
      "docs/usage.md",
      "changes/apply.go",
      "README.md",
    ]
  ) assert.ok(!isChangelogPath(path), path);
});

const ALL = LOWERED_KIND_NAMES;

Deno.test("askedKinds() keeps a kind's full score when the query asks for it, not for words containing it", () => {
  const lowered = (query: string) => ALL.filter((kind) => !askedKinds(query).has(kind));
  for (const query of ["why does this test fail", "unit tests for the parser", "the db fixture"]) {
    assert.deepEqual(
      lowered(query),
      ["changelog", "documentation", "tooling", "example", "data"],
      query,
    );
  }
  for (
    const query of [
      "what changed in release 2.0",
      "the changelog of the parser",
      "deprecated",
      "breaking changes in the parser",
      "changes since v2",
    ]
  ) {
    assert.deepEqual(
      lowered(query),
      ["test", "documentation", "tooling", "example", "data"],
      query,
    );
  }
  assert.ok(
    lowered("who needs to approve schema changes?").includes("changelog"),
    "changes to a schema are not what changed between versions",
  );
  for (const query of ["is this documented?", "the README's section", "docs for retry"]) {
    assert.deepEqual(lowered(query), ["test", "changelog", "tooling", "example", "data"], query);
  }
  for (
    const query of [
      "pytest crashes on import",
      "latest patch",
      "how does it build the SVG card",
    ]
  ) {
    assert.deepEqual(lowered(query), ALL, query);
  }
  for (
    const query of ["the CI workflow fails", "how are the linters configured", "bump a dependency"]
  ) {
    assert.deepEqual(
      lowered(query),
      ["test", "changelog", "documentation", "example", "data"],
      query,
    );
  }
  for (const query of ["the blog example crashes", "a demo of streaming", "benchmarks are slow"]) {
    assert.deepEqual(lowered(query), ALL.filter((kind) => kind !== "example"), query);
  }
  // An issue asks for what its first line names, whatever its body mentions.
  assert.deepEqual(
    lowered("Wrapping drops wide characters\n\nSteps: run the tests; the docs say it wraps."),
    ALL,
  );
  assert.deepEqual(lowered("Flaky test of the pager\n\nIt fails on macOS in CI."), [
    "changelog",
    "documentation",
    "tooling",
    "example",
    "data",
  ]);
  for (const query of ["which YAML keys are read", "the config's JSON schema", "a German locale"]) {
    assert.deepEqual(lowered(query), ALL.filter((kind) => kind !== "data"), query);
  }
});

Deno.test("isDocumentationPath() knows prose markup and what documentation folders hold besides code", () => {
  for (
    const path of [
      "README.md",
      "docs/usage.rst",
      "guide/intro.mdx",
      "manual/index.adoc",
      "doc/releases/v0.12.0.txt",
      "docs/fd.1",
    ]
  ) assert.ok(isDocumentationPath(path), path);
  for (
    const path of [
      "src/docs.py",
      "requirements.txt",
      "CMakeLists.txt",
      "Makefile",
      "src/docstring/parse.py",
      "lib/doctor.js",
      "doc/man_docs.go",
      "docs/conf.py",
    ]
  ) {
    assert.ok(!isDocumentationPath(path), path);
  }
  // A changelog is prose too, and is known as a changelog first.
  assert.equal(kindsOf("CHANGELOG.md")[0]?.name, "changelog");
  assert.equal(kindsOf("docs/testing.md")[0]?.name, "documentation");
  assert.equal(kindsOf("tests/README.md")[0]?.name, "test");
});

Deno.test("isToolingPath() knows build, CI and packaging files and the licence, never product code", () => {
  for (
    const path of [
      ".github/workflows/ci.yml",
      ".github/ISSUE_TEMPLATE/bug_report.md",
      "web/.eslintrc.json",
      ".gitignore",
      "package.json",
      "packages/core/package-lock.json",
      "Cargo.toml",
      "go.sum",
      "pyproject.toml",
      "setup.cfg",
      "tox.ini",
      "requirements-dev.txt",
      "Makefile",
      "CMakeLists.txt",
      "Dockerfile.dev",
      "tsconfig.build.json",
      "rollup.config.js",
      "karma.sauce.conf.js",
      "vite.config.mts",
      "LICENSE",
      "LICENSE-MIT",
      "COPYING.LESSER",
      "AUTHORS.txt",
      "scripts/release.sh",
    ]
  ) assert.ok(isToolingPath(path), path);
  for (
    const path of [
      "src/config.ts",
      "lib/package.js",
      "src/click/_compat.py",
      "setup.py",
      "src/notice.ts",
      "licensing/check.go",
      "src/build/mod.rs",
      "app/config/settings.py",
      "docs/conf.py",
    ]
  ) assert.ok(!isToolingPath(path), path);
  // A test's or the documentation's own files are known as those first.
  assert.equal(kindsOf("tests/.eslintrc.json")[0]?.name, "test");
  assert.equal(kindsOf("CONTRIBUTING.md")[0]?.name, "documentation");
  assert.equal(kindsOf(".github/workflows/ci.yml")[0]?.name, "tooling");
});

Deno.test("isExamplePath() knows examples, demos and benchmarks, not code named for them", () => {
  for (
    const path of [
      "examples/blog/app.js",
      "docs/examples/basic.py",
      "packages/bench/union.ts",
      "src/v3/benchmarks/primitives.ts",
      "demo/index.html",
      "samples/hello/main.go",
    ]
  ) assert.ok(isExamplePath(path), path);
  for (
    const path of ["src/example.py", "lib/examples.js", "src/benchmark.rs", "src/sample/mod.rs"]
  ) {
    assert.ok(!isExamplePath(path), path);
  }
});

Deno.test("isDataPath() knows data and configuration files that are no other kind, never code", () => {
  for (
    const path of [
      "snapcraft.yaml",
      "src/common/languageColors.json",
      "Cross.toml",
      "config/settings.yaml.in",
      "godoc-current.txt",
      "locales/de.po",
    ]
  ) assert.ok(isDataPath(path), path);
  for (
    const path of [
      "src/main.rs",
      "index.d.ts",
      "pkg/brew/ripgrep-bin.rb",
      "src/ext/_speedups.pyx",
      "scripts/release.sh",
      "bin/fzf-tmux",
      "complete/_rg",
      "assets/completions/bat.zsh.in",
      "shell/key-bindings.nu",
      // Another kind first: a test's fixture, a CI workflow, a man page, a README.
      "tests/data/config.json",
      ".github/workflows/ci.yml",
      "assets/manual/bat.1.in",
      "README",
    ]
  ) assert.ok(!isDataPath(path), path);
  assert.equal(kindsOf("assets/manual/bat.1.in")[0]?.name, "documentation");
  assert.equal(kindsOf("README")[0]?.name, "documentation");
});

Deno.test("askedKinds() takes the folder a search is narrowed to as asked for", () => {
  // A folder's data files are asked for too: whoever points at a folder knows what is in it.
  assert.deepEqual([...askedKinds("retry", "tests")], ["test", "data"]);
  assert.deepEqual([...askedKinds("retry", "docs/")], ["documentation", "data"]);
  assert.deepEqual([...askedKinds("retry", ".github/workflows")], ["tooling", "data"]);
  assert.deepEqual([...askedKinds("retry", "src/auth")], ["data"]);
  // A file of several kinds: a benchmark in a test folder, Go's examples in a test file.
  assert.deepEqual(kindsOf("tests/bench/rank.bench.js").map((kind) => kind.name), [
    "test",
    "example",
  ]);
  assert.deepEqual(kindsOf("doc/man_examples_test.go").map((kind) => kind.name), [
    "test",
    "example",
  ]);
});
