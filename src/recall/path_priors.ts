/**
 * Files that code recall lowers unless the query is about them. Asked "where
 * is X done?", an agent wants the implementation: a test that exercises X
 * shares its words, a changelog mentions everything the project ever
 * changed, and the documentation explains X in the same words; each would
 * crowd the code out. A build, CI or packaging file (a bundler's config, a
 * bug-report template, the licence) shares an issue's generic words, an
 * example or a benchmark uses the very API the question is about, and a data
 * or configuration file (a colour table, a packaging recipe) is not where
 * anything is done (docs/decisions.md has the measurements).
 * @module
 */
import { languageOf } from "../ingest/code/languages.ts";

/** What a lowered file's fused score is multiplied by. */
export const LOWERED_FILE_PRIOR = 0.25;

/** The kinds of file recall lowers. */
export type LoweredKindName =
  | "test"
  | "changelog"
  | "documentation"
  | "tooling"
  | "example"
  | "data";

/** A kind of file recall lowers: how its path looks, and how a query asks for it. */
export interface LoweredKind {
  name: LoweredKindName;
  /**
   * How `--format debug` names it: `test file`, `changelog`, `documentation`,
   * `tooling file`, `example`, `data file`.
   */
  label: string;
  matches(path: string): boolean;
  askedFor(query: string): boolean;
}

/** Test folders, and the fixtures tests read (Go's `testdata`, Jest's `__mocks__`). */
const TEST_FOLDER =
  /(^|\/)(tests?|testing|__tests__|specs?|e2e|testdata|fixtures?|__fixtures__|__mocks__)\//i;
const TEST_FILE = new RegExp(
  [
    String.raw`(^|/)test_[^/]*$`, // Python: test_models.py
    String.raw`(^|/)conftest\.py$`, // pytest fixtures
    String.raw`(^|/)tests?\.rs$`, // Rust: a module's unit tests in src/parser/tests.rs
    String.raw`_(test|spec)\.[a-z]+$`, // Go, Ruby, Python: models_test.go, user_spec.rb
    String.raw`\.(test|spec)\.[a-z]+$`, // JavaScript, TypeScript: app.test.ts
    String.raw`[a-z0-9](Test|Tests|IT)\.(java|kt|cs|php)$`, // JUnit, xUnit, PHPUnit: FooTest.java
  ].join("|"),
);
const ABOUT_TESTS = /\b(tests?|testing|unit ?tests?|test ?cases?|specs?|fixtures?)\b/i;

/** Prose files only (no extension, or a prose one): a module named `changes.py` is code. */
const PROSE = /(^|\/)[^/.]+$|\.(md|markdown|rst|txt|adoc)$/i;
const CHANGELOG_FILE =
  /(^|\/)(change[_-]?logs?|changes|history|news|release[_-]?notes|releases|whats[_-]?new)(\.[a-z]+)?$/i;
const CHANGELOG_FOLDER =
  /(^|\/)(change[_-]?logs?|changelog\.d|changes|newsfragments|release[_-]?notes)\//i;
/**
 * A question about what changed between versions; plain `changes` is not one
 * ("who approves schema changes?" asks for a rule, not the changelog).
 */
const ABOUT_CHANGES =
  /\b(change ?logs?|(recent|latest|breaking|notable|upcoming) changes|changes (in|since|between|for) (v(ersion)?\s?\d|versions?|releases?)|what changed|history|news|releases?|released|release notes|versions?|what'?s new|deprecat\w*)\b/i;
/**
 * Markup prose, man pages (`fd.1`, a man page's template `bat.1.in`) and a
 * bare README; a `.txt` is as often a requirements list or CMake's as prose,
 * so it is not documentation.
 */
const DOCUMENTATION_FILE = /\.(md|markdown|mdx|rst|adoc|[1-9]|man)(\.in)?$|(^|\/)readme$/i;
/** A documentation folder. */
const DOCUMENTATION_FOLDER = /(^|\/)(docs?|documentation)\//i;
const ABOUT_DOCUMENTATION =
  /\b(docs?|documentation|documented|documents?|readme|guides?|tutorials?|manual|man ?pages?|markdown)\b/i;

/** A folder of the project's own scripts: `scripts/release.sh`, `scripts/lint`. */
const SCRIPTS_FOLDER = /(^|\/)scripts\//i;
/** A hidden file or folder at any depth: `.github/`, `.eslintrc.json`, `.gitignore`. */
const HIDDEN = /(^|\/)\.[^/.][^/]*(\/|$)/;
/** Manifests, lock files and build files, by their conventional names. */
const BUILD_FILE = new RegExp(
  String.raw`(^|/)(` +
    [
      String.raw`package(-lock)?\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-(lock|workspace)\.yaml`,
      String.raw`bun\.lockb?|deno\.(json|jsonc|lock)|lerna\.json|nx\.json|turbo\.json`,
      String.raw`[jt]sconfig[^/]*\.json`,
      String.raw`cargo\.(toml|lock)|go\.(mod|sum|work)`,
      String.raw`pyproject\.toml|setup\.cfg|tox\.ini|(requirements|constraints)[^/]*\.(txt|in)`,
      String.raw`pipfile(\.lock)?|poetry\.lock|uv\.lock|manifest\.in`,
      String.raw`gemfile(\.lock)?|[^/]+\.gemspec|composer\.(json|lock)`,
      String.raw`pom\.xml|(build|settings)\.gradle(\.kts)?|gradle\.properties`,
      String.raw`(gnu)?makefile|cmakelists\.txt|justfile|taskfile\.ya?ml`,
      String.raw`dockerfile[^/]*|docker-compose[^/]*\.ya?ml`,
      String.raw`renovate\.json|codecov\.ya?ml|mkdocs\.ya?ml|netlify\.toml|vercel\.json`,
      String.raw`(gulp|grunt)file\.[cm]?[jt]s|[^/]+\.(config|conf)\.([cm]?[jt]s|json)`,
    ].join("|") +
    ")$",
  "i",
);
/** The licence and the repository's people, in whatever form (`LICENSE-MIT`, `AUTHORS.txt`). */
const PROJECT_FILE =
  /(^|\/)(licen[cs]e|copying|notice|authors|contributors|codeowners|funding)([._-][^/]*)?$/i;
const ABOUT_TOOLING = new RegExp(
  String.raw`\b(ci|ci/cd|workflows?|github actions?|build (system|scripts?|config\w*|steps?)|` +
    String.raw`bundl(e|es|er|ers|ing)|packag(es|ing|ed)|dependenc(y|ies)|deps|` +
    String.raw`install(s|ed|ing|ation)?|lint\w*|eslint|prettier|tsconfig|licen[cs]es?|licensing|` +
    String.raw`docker\w*|deploy\w*|makefile|make targets?|tox|pyproject|go\.mod|npm|yarn|pnpm|` +
    String.raw`cargo|pip|poetry|pre-commit|publish(es|ed|ing)?|scripts?|config files?)\b`,
  "i",
);

/** Examples, demos and benchmarks: code that uses the product, kept beside it. */
const EXAMPLE_FOLDER = /(^|\/)(examples?|samples|demos?|benchmarks?|bench(es)?)\//i;
/** Go's runnable examples: `example_test.go`, `man_examples_test.go`. */
const EXAMPLE_FILE = /(^|\/|_)examples?_test\.go$/i;
const ABOUT_EXAMPLES = /\b(examples?|samples?|demos?|benchmarks?|bench(es)?)\b/i;

/**
 * Data and configuration formats, by extension (a template's `.in` aside:
 * `config.yaml.in`): JSON, YAML, TOML, INI, XML, tables, plain text, lock
 * files, snapshots, translations. Anything else with an extension cairn does
 * not know may be code (Nushell, Cython, a Makefile fragment), and a file
 * without one often is (`bin/fzf-tmux`, `install`), so neither is lowered.
 */
const DATA_FILE =
  /\.(json[c5l]?|ndjson|geojson|ya?ml|toml|ini|cfg|conf|properties|env|xml|plist|csv|tsv|txt|lock|svg|snap|po|pot)(\.in)?$/i;
const ABOUT_DATA = new RegExp(
  String.raw`\b(json|ya?ml|toml|xml|csv|tsv|ini|data files?|configs?|configuration|config files?|` +
    String.raw`settings files?|schemas?|snapshots?|translations?|locales?)\b`,
  "i",
);

/** Whether a project-relative path is a test (by folder or by file name). */
export function isTestPath(path: string): boolean {
  return TEST_FOLDER.test(path) || TEST_FILE.test(path);
}

/** Whether a project-relative path is a changelog, release notes or a news fragment (prose only). */
export function isChangelogPath(path: string): boolean {
  return PROSE.test(path) && (CHANGELOG_FILE.test(path) || CHANGELOG_FOLDER.test(path));
}

/**
 * Whether a project-relative path is documentation: prose markup (Markdown,
 * reStructuredText, AsciiDoc), or a file in a documentation folder that is
 * not source code, and not a changelog (release notes as text, man pages, images' sources; a Go
 * package named `doc` is code).
 */
export function isDocumentationPath(path: string): boolean {
  return !isChangelogPath(path) && (DOCUMENTATION_FILE.test(path) ||
    (DOCUMENTATION_FOLDER.test(path) && languageOf(path) === undefined));
}

/**
 * Whether a project-relative path is a build, CI or packaging file, or one
 * about the repository rather than the product: hidden files and folders
 * (CI workflows, issue templates, linters' settings), the `scripts/`
 * folder, manifests and lock files, build files and bundlers' configs, the
 * licence.
 */
export function isToolingPath(path: string): boolean {
  return HIDDEN.test(path) || SCRIPTS_FOLDER.test(path) || BUILD_FILE.test(path) ||
    (PROJECT_FILE.test(path) && languageOf(path) === undefined);
}

/** Whether a project-relative path is in an examples, demos or benchmarks folder, or is Go's examples. */
export function isExamplePath(path: string): boolean {
  return EXAMPLE_FOLDER.test(path) || EXAMPLE_FILE.test(path);
}

/**
 * Whether a project-relative path is a data or configuration file and no
 * other kind recall lowers (a test's fixture is a test, a CI workflow is
 * tooling): `snapcraft.yaml`, `src/common/languageColors.json`, `Cross.toml`.
 */
export function isDataPath(path: string): boolean {
  return DATA_FILE.test(path) && !isTestPath(path) && !isChangelogPath(path) &&
    !isDocumentationPath(path) && !isToolingPath(path) && !isExamplePath(path);
}

/** In order: the first a file is decides its factor. */
const KINDS: readonly LoweredKind[] = [
  {
    name: "test",
    label: "test file",
    matches: isTestPath,
    askedFor: (query) => ABOUT_TESTS.test(query),
  },
  {
    name: "changelog",
    label: "changelog",
    matches: isChangelogPath,
    askedFor: (query) => ABOUT_CHANGES.test(query),
  },
  {
    name: "documentation",
    label: "documentation",
    matches: isDocumentationPath,
    askedFor: (query) => ABOUT_DOCUMENTATION.test(query),
  },
  {
    name: "tooling",
    label: "tooling file",
    matches: isToolingPath,
    askedFor: (query) => ABOUT_TOOLING.test(query),
  },
  {
    name: "example",
    label: "example",
    matches: isExamplePath,
    askedFor: (query) => ABOUT_EXAMPLES.test(query),
  },
  {
    name: "data",
    label: "data file",
    matches: isDataPath,
    askedFor: (query) => ABOUT_DATA.test(query),
  },
];

/** The names of the kinds of file recall lowers, in the order they are tried. */
export const LOWERED_KIND_NAMES: readonly LoweredKindName[] = KINDS.map((kind) => kind.name);

/** The kind of file at `path` that recall may lower (the first that matches), if any. */
export function loweredKindOf(path: string): LoweredKind | undefined {
  return KINDS.find((kind) => kind.matches(path));
}

/** Every kind of file `path` is, in order (a benchmark in a test folder is both). */
export function kindsOf(path: string): LoweredKind[] {
  return KINDS.filter((kind) => kind.matches(path));
}

/** A query's subject: its first line (an issue's title, a commit message's summary). */
export function subjectOf(query: string): string {
  return query.trim().split("\n", 1)[0]!;
}

/**
 * The kinds of file a request asks for, which recall does not lower: those
 * its query names, and those of the folder it is narrowed to (`--path
 * tests`) with its data files (whoever points at a folder knows what is in
 * it). A query of several lines (an issue, a commit message) asks for what
 * its first line names: a body that mentions the tests it ran or the docs it
 * read is still asking about the code.
 */
export function askedKinds(query: string, pathPrefix?: string): Set<LoweredKindName> {
  const subject = subjectOf(query);
  const folder = pathPrefix === undefined
    ? []
    : [...kindsOf(`${pathPrefix.replace(/\/+$/, "")}/_`).map((kind) => kind.name), "data"];
  return new Set(
    KINDS.filter((kind) => kind.askedFor(subject) || folder.includes(kind.name))
      .map((kind) => kind.name),
  );
}
