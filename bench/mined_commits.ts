/**
 * The text rules of the mined dev set (`bench/mine_issues.ts`): which commit
 * messages say they fix something, how a message becomes a query with the
 * answer taken out, which changed paths count as source, and which Python
 * definitions a diff touched. Pure functions, no git.
 * @module
 */

/** An issue or pull-request reference: `#123`, `gh-123`, or a GitHub issue/pull URL. */
const REF = String
  .raw`(?:(?:[\w.-]+/[\w.-]+)?#\d+|\bgh-\d+|https?://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+)`;
const FIX_REF = new RegExp(
  String.raw`\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\b[:\s]+${REF}`,
  "i",
);
const FIX_SUBJECT =
  /^\s*(?:\[?(?:bug ?)?fix(?:e[sd]|ing)?\]?\b|fix(?:\([^)]*\))?!?:|bug(?:fix)?\b)/i;
/** Housekeeping that says "fix" but is no behaviour change a user would report. */
const HOUSEKEEPING =
  /\b(?:typos?|\w*lint(?:er|ers|ing|s)?|vet|staticcheck|flake8|mypy|clippy|rustfmt|gofmt|prettier|eslint|formatting|pre-commit|dependabot|bump|release)\b/i;
const TRAILER =
  /^(?:signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|helped-by|change-id|cc):.*$/gim;
const REF_PHRASE = new RegExp(
  String
    .raw`\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?|refs?|see|part of|related to)\b[:\s]*${REF}(?:\s*(?:,|and)?\s*${REF})*`,
  "gi",
);
const URL = /https?:\/\/\S+/g;
const EMAIL = /<?[\w.+-]+@[\w-]+(?:\.[\w-]+)+>?/g;
/** A squashed commit's bullet about bookkeeping rather than the change. */
const HOUSEKEEPING_BULLET =
  /^\s*[*-]\s.*\b(?:changelog|news|fragments?|contributors?|review|typos?|\w*lint(?:er|ing|s)?|formatting|wip|merge branch|pre-commit|version)\b/i;
/** A changed line that is blank or a comment (`//`, `#`, `/*`, `*`, `"""`). */
const COMMENT_LINE = /^[+-]\s*(?:$|\/\/|#|\/\*|\*|"""|\'\'\')/;
/** Extensions of files a token may name: code, config and docs. */
const FILE_EXTENSION =
  /\.(?:py|pyi|pyx|js|jsx|mjs|cjs|ts|tsx|mts|cts|go|rs|md|rst|txt|toml|json|ya?ml|cfg|ini|lock|html|css|sh)\b/i;

/** Code files by extension: the languages of the set. */
const SOURCE_EXTENSION = /\.(?:py|pyi|js|jsx|mjs|cjs|ts|tsx|mts|cts|go|rs)$/;
const TEST_FOLDER =
  /(?:^|\/)(?:tests?|__tests__|testing|testdata|test_data|spec|specs|fixtures?|e2e)\//;
const TEST_FILE =
  /(?:^|\/)(?:test_[^/]*|[^/]*_test\.[^/]+|[^/]*\.(?:test|spec)\.[^/]+|tests?\.rs|conftest\.py)$/;
/**
 * Folders whose code is not the product's source: documentation, examples,
 * benchmarks, vendored code, and built copies (`dist/`, `build/`, zod's `deno/`).
 */
const NOT_PRODUCT =
  /(?:^|\/)(?:docs?|examples?|benches|benchmarks?|bench|scripts|vendor|node_modules|dist|build|deno|\.github)\//;
/** Build and tooling files: bundler and test-runner configs, task files, packaging scripts. */
const TOOLING =
  /(?:^|\/)(?:[^/]*\.config\.[cm]?[jt]s|[Gg]ulpfile\.[jt]s|[Gg]runtfile\.[jt]s|setup\.py|noxfile\.py|tasks\.py|fabfile\.py|magefile\.go)$/;

/** What a changed path is, for the gold: product source, a test, or anything else. */
export type PathKind = "source" | "test" | "other";

/**
 * Whether a commit message says it fixes something: a `Fix #12` / `closes
 * #12` / `resolves <issue URL>` phrase anywhere, or a subject that starts
 * with `Fix`, `fix:`, `fix(scope):`, `Bugfix` or `Bug`. Reverts and
 * housekeeping (typos, linters, formatting, version bumps) are not.
 */
export function isFixMessage(message: string): boolean {
  const subject = message.split("\n", 1)[0] ?? "";
  if (/^\s*revert\b/i.test(subject) || HOUSEKEEPING.test(subject)) return false;
  return FIX_REF.test(message) || FIX_SUBJECT.test(subject);
}

/** The issue and pull-request numbers a message refers to (`#12`, `gh-12`, issue URLs). */
export function referencedNumbers(message: string): number[] {
  const numbers = [...message.matchAll(new RegExp(REF, "gi"))]
    .map((match) => Number(/(\d+)$/.exec(match[0])?.[1]));
  return [...new Set(numbers.filter(Number.isFinite))];
}

/**
 * A commit message as a query with its answer taken out. Stripped: trailer
 * lines (`Signed-off-by:`, `Co-authored-by:` …); every URL; issue and pull
 * references (`#123`, `gh-123`, `owner/repo#123`) together with the phrase
 * that carries them (`Fixes #123`, `closes #1, #2`, `see #4`); a conventional
 * commit's scope (`fix(cli):` becomes `fix:`); e-mail addresses; a squashed
 * pull request's bookkeeping bullets (`* Update changelog`, `* Apply review
 * comment`), bullets that repeat the subject, and lines left without a letter;
 * and every token that names a
 * file: one with a file extension (`cli.rs`, `docs/index.md`), or one with
 * a `/`, `.` or `::` separator whose parts hold a changed file's path parts
 * in order (`httpx._client`, `src/cli`, `cli::Opts` for `src/cli.rs`).
 * Plain words are kept, even when one is a changed file's name (`client`).
 */
export function cleanQuery(message: string, changedPaths: readonly string[]): string {
  const named = changedPaths.map(pathParts).filter((parts) => parts.length > 0);
  const text = message.replace(TRAILER, "").replace(REF_PHRASE, "")
    .replace(new RegExp(REF, "gi"), "").replace(URL, "").replace(EMAIL, "")
    .replace(/^(\s*\w+)\([^)]*\)(!?):/, "$1$2:").replace(/^[\s:,.;-]+/, "");
  const lines = text.split("\n")
    .map((line) => line.split(/(\s+)/).filter((token) => !namesFile(token, named)).join(""))
    .map((line) => line.replace(/[ \t]+/g, " ").replace(/\(\s*\)|\[\s*\]/g, "").trimEnd());
  const subject = unbulleted(lines[0] ?? "");
  return lines.filter((line, i) => i === 0 || keepLine(line, subject))
    .join("\n").replace(/\n{3,}/g, "\n\n").trim();
}

function keepLine(line: string, subject: string): boolean {
  if (line.trim() === "") return true;
  if (!/[A-Za-z]/.test(line) || HOUSEKEEPING_BULLET.test(line)) return false;
  return unbulleted(line) !== subject;
}

function unbulleted(line: string): string {
  return line.replace(/^\s*[*-]\s+/, "").trim();
}

/**
 * Whether a `git diff -U0` only adds or removes blank and comment lines
 * (a change to documentation comments, not to behaviour).
 */
export function isCommentOnly(diff: string): boolean {
  return diff.split("\n")
    .filter((line) => /^[+-]/.test(line) && !/^(?:\+\+\+|---) /.test(line))
    .every((line) => COMMENT_LINE.test(line));
}

/** Words in a text (letters first, then letters, digits, `_`, `'` or `-`). */
export function wordCount(text: string): number {
  return text.match(/[A-Za-z][A-Za-z0-9_'-]*/g)?.length ?? 0;
}

/** Whether `path` is product source, a test, or something else (docs, config, examples…). */
export function pathKind(path: string): PathKind {
  if (!SOURCE_EXTENSION.test(path)) return "other";
  if (TEST_FOLDER.test(path) || TEST_FILE.test(path)) return "test";
  if (NOT_PRODUCT.test(path) || TOOLING.test(path)) return "other";
  return "source";
}

/** The language of a source path: python, typescript, javascript, go or rust. */
export function languageOfPath(path: string): string | undefined {
  if (/\.pyi?$/.test(path)) return "python";
  if (/\.[mc]?tsx?$/.test(path)) return "typescript";
  if (/\.[mc]?jsx?$/.test(path)) return "javascript";
  if (path.endsWith(".go")) return "go";
  if (path.endsWith(".rs")) return "rust";
  return undefined;
}

/** The old-side lines (1-based) each hunk of a `git diff -U0` touched; a pure insertion gives the line before it. */
export function changedOldLines(diff: string): number[] {
  const lines: number[] = [];
  for (const match of diff.matchAll(/^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/gm)) {
    const start = Number(match[1]);
    const count = match[2] === undefined ? 1 : Number(match[2]);
    if (count === 0) lines.push(Math.max(start, 1));
    for (let line = start; line < start + count; line++) lines.push(line);
  }
  return lines;
}

/**
 * The dot-qualified Python definitions (`Client.send`, `parse`) that enclose
 * the given 1-based lines of `source`, found by indentation: the nearest
 * `def`/`class` above a line with less indentation, then its own parents,
 * up to the outermost function (a closure's change is its function's).
 * Lines at module level give nothing.
 */
export function pythonSpans(source: string, lines: readonly number[]): string[] {
  const text = source.split("\n");
  const spans = new Set<string>();
  for (const line of lines) {
    const name = enclosingPython(text, line - 1);
    if (name) spans.add(name);
  }
  return [...spans].sort();
}

function enclosingPython(text: readonly string[], index: number): string | undefined {
  const chain: Array<{ name: string; isFunction: boolean }> = [];
  let limit = Infinity;
  for (let i = Math.min(index, text.length - 1); i >= 0; i--) {
    const line = text[i]!;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const indent = line.length - line.trimStart().length;
    const definition = /^\s*(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)/.exec(line);
    if (indent >= limit && i !== index) continue;
    if (definition) chain.unshift({ name: definition[2]!, isFunction: definition[1] === "def" });
    limit = indent;
    if (indent === 0) break;
  }
  // Functions defined inside a function belong to it: the name stops at the outermost function.
  const outermost = chain.findIndex((part) => part.isFunction);
  const names = chain.slice(0, outermost < 0 ? chain.length : outermost + 1);
  return names.length > 0 ? names.map((part) => part.name).join(".") : undefined;
}

/**
 * `count` items of `items` chosen by a seeded shuffle, in the order chosen:
 * the same items, seed and key always give the same choice.
 */
export function seededPick<T>(items: readonly T[], count: number, seed: string): T[] {
  const random = mulberry32(hash(seed));
  const pool = [...items];
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, count);
}

function pathParts(path: string): string[] {
  const parts = path.replace(/\.[^./]+$/, "").split("/");
  while (parts.length > 1 && ["src", "lib", "pkg", "internal"].includes(parts[0]!)) parts.shift();
  while (parts.length > 1 && ["mod", "index", "__init__", "main"].includes(parts.at(-1)!)) {
    parts.pop();
  }
  return parts;
}

function namesFile(token: string, named: readonly string[][]): boolean {
  const bare = token.replace(/^[`'"(<[]+|[`'")>\],;:.!?]+$/g, "");
  if (bare === "" || /^\s+$/.test(token)) return false;
  if (FILE_EXTENSION.test(bare) && /^[\w./-]+$/.test(bare)) return true;
  const segments = bare.split(/::|[./\\]/).filter(Boolean);
  if (segments.length < 2) return false;
  return named.some((parts) => containsRun(segments, parts));
}

function containsRun(segments: readonly string[], parts: readonly string[]): boolean {
  for (let i = 0; i + parts.length <= segments.length; i++) {
    if (parts.every((part, k) => segments[i + k] === part)) return true;
  }
  return false;
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
