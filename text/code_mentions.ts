/**
 * The code a free text names: file paths and identifiers, read off the text
 * alone, for three readers that want different things of it:
 *
 * - what a memory names ({@linkcode codeNames}), so the graph links it to the
 *   files and symbols it is about, indexed now or later;
 * - what a query names ({@linkcode codeMentions}), stack frames first. Agents
 *   paste what went wrong: a traceback names the functions it went through
 *   and their files, an issue names the class or the method it is about
 *   (`PolyFit`, `Request.register_hook()`, `resolve_redirects`). Those names
 *   are the strongest pointers a question holds, and BM25 weighs them like
 *   any other word among hundreds;
 * - the files a transcript's shell commands, patches and prompts name
 *   ({@linkcode commandPaths}, {@linkcode patchPaths}, {@linkcode promptPaths}).
 *
 * All three take the same extensions for source files. The rest of their
 * rules differ, and each difference is said where it is written: the
 * retrieval figures were measured with each reader's rules as they are.
 * @module
 */

/** The extensions every reader takes for a source or config file. */
const SOURCE_EXTENSIONS: readonly string[] =
  "ts tsx js jsx mjs py rs go java c h cc cpp hpp rb cs php md json yml yaml toml".split(" ");

/** The last segment of a qualified name: `Request.register_hook` → `register_hook`. */
export function simpleName(name: string): string {
  return name.split(/[.:#]+/).filter(Boolean).at(-1) ?? name;
}

// What a memory names.

/**
 * A path with a folder (any extension or none), or a file name with a source
 * extension, Kotlin's, a shell script's or SQL's. Case matters: `A.TS` is no
 * file name here, though a query's rules take it for one.
 */
const MEMORY_PATH = new RegExp(
  String.raw`(?:[\w.-]+\/)+[\w.-]+|\b[\w-]+\.(?:${
    [...SOURCE_EXTENSIONS, "kt", "sh", "sql"].join("|")
  })\b`,
  "g",
);

/**
 * Identifiers as a memory writes them: qualified (`a.b`), snake_case from a
 * lower-case letter, camelCase, or called (`name(`). Narrower than a query's
 * names (no `$`, no backticks, no PascalCase or `_private` alone), and read
 * from paths too: a path's parts are then dropped when a path ends with them.
 */
const MEMORY_IDENTIFIER =
  /\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\b|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[A-Za-z_][A-Za-z0-9_]*(?=\()/g;

/**
 * The file paths and code identifiers a memory's text names, each once:
 * paths as written (without a leading `./`), identifiers by their
 * {@linkcode simpleName} and of three characters or more.
 *
 * @example
 * ```ts
 * codeNames("Fix src/auth/login.ts; call getUserName() from user_service");
 * // { paths: ["src/auth/login.ts"], symbols: ["getUserName", "user_service"] }
 * ```
 */
export function codeNames(text: string): { paths: string[]; symbols: string[] } {
  const paths = [...new Set(text.match(MEMORY_PATH) ?? [])].map((path) =>
    path.replace(/^\.\//, "")
  );
  const symbols = [...new Set((text.match(MEMORY_IDENTIFIER) ?? []).map(simpleName))]
    .filter((name) => name.length >= 3 && !paths.some((path) => path.endsWith(name)));
  return { paths, symbols };
}

// What a query names.

/** A place in the code the query names: a definition, with its file when a stack frame gives it. */
export interface CodeMention {
  /** Dot-qualified as far as the query qualifies it (`Request.register_hook`, `get_writer`). */
  name: string;
  /** The frame's file as printed (absolute, `~/…`, or relative). */
  path?: string;
}

const IDENTIFIER = String.raw`[A-Za-z_$][\w$]*`;
const QUALIFIED = String.raw`${IDENTIFIER}(?:\.${IDENTIFIER})*`;

/**
 * Stack frames, each with its file and function: Python's `File "p.py", line
 * 3, in name`, IPython's `File ~/p.py:3, in Class.name(args)` and
 * `p.py in name(args)`, and JavaScript's `at Class.name (p.ts:3:7)`.
 */
const FRAMES = [
  String.raw`File "(?<path>[^"\n]+)", line \d+, in (?<name>${QUALIFIED})`,
  String.raw`File (?<path>[^\s,]+?):\d+, in (?<name>${QUALIFIED})`,
  String.raw`^\s*(?<path>\S+\.py) in (?<name>${QUALIFIED})\(`,
  String.raw`\bat (?:async )?(?<name>${QUALIFIED}) \((?<path>[^\s()]+?):\d+:\d+\)`,
].map((source) => new RegExp(source, "gm"));

/**
 * Names written as code: in backticks, qualified (`a.b`), called (`name(`),
 * or shaped like an identifier (snake_case, camelCase, PascalCase with two
 * humps or more). A capitalised or lower-case plain word is prose.
 */
const NAMES = new RegExp(
  [
    String.raw`\x60(${QUALIFIED})(?:\(\))?\x60`,
    String.raw`\b(${IDENTIFIER}(?:\.${IDENTIFIER})+)\b`,
    String.raw`\b(${IDENTIFIER})\(`,
    String.raw`\b(\w*[a-z0-9]_\w*|_\w+|[a-z][a-z0-9]*[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*)\b`,
  ].join("|"),
  "g",
);

/**
 * File names and web addresses look qualified but name no definition: a
 * source extension, a few more of Python's, the web's and docs', or a
 * top-level domain; in any case (`SETUP.PY`).
 */
const NOT_CODE = new RegExp(
  String.raw`\.(?:${
    [
      ...SOURCE_EXTENSIONS,
      ..."pyi pyx cjs rst txt cfg ini html css".split(" "),
      ..."com org io net".split(" "),
    ].join("|")
  })$`,
  "i",
);
/** Paths and addresses, whose folder names (`_core`, `my_pkg`) are not code. */
const PATHS = /\S*[/\\]\S*/g;
/** The receiver of a method call on an instance says nothing about which class it is. */
const RECEIVER = /^(?:self|cls|this)\./;
/** How many names are read from one query: the first ones are what it is about. */
const MAX_NAMES = 30;

/**
 * What `query` names in the code: stack frames first, innermost first (where
 * it went wrong), then the names written as code, in the order they appear;
 * each name once.
 */
export function codeMentions(query: string): CodeMention[] {
  const frames = FRAMES.flatMap((pattern) =>
    [...query.matchAll(pattern)].map((match) => ({
      at: match.index,
      name: match.groups!.name!.replace(/^Object\./, ""),
      path: match.groups!.path!,
    }))
  ).sort((a, b) => b.at - a.at);
  const mentions: CodeMention[] = [];
  const seen = new Set<string>();
  for (const { name, path } of frames) {
    if (seen.has(`${name}\0${path}`)) continue;
    seen.add(`${name}\0${path}`).add(name);
    mentions.push({ name, path });
  }
  for (const match of query.replace(PATHS, " ").matchAll(NAMES)) {
    const name = match.slice(1).find((group) => group !== undefined)!.replace(RECEIVER, "");
    if (NOT_CODE.test(name) || seen.has(name)) continue;
    seen.add(name);
    mentions.push({ name });
    if (mentions.length >= MAX_NAMES) break;
  }
  return mentions;
}

// The files a transcript's commands, patches and prompts name.

/**
 * Extensions that make a bare word (`ingest.rs`, `package.json`,
 * `.gitignore`) a file name: the source ones and any other file an agent
 * works on, in any case. Wider than a memory's or a query's rules: a
 * command's words are not prose.
 */
const FILE_EXTENSIONS: ReadonlySet<string> = new Set([
  ...SOURCE_EXTENSIONS,
  ...("mts cts cjs jsonc jsonl mdx txt rst pyi kt kts scala cxx hh fs pl sh bash zsh fish ps1 " +
    "ini cfg conf lock html htm css scss sass less sql xml csv tsv env swift m mm lua vue svelte " +
    "astro ipynb gradle mod sum tf tfvars proto graphql gql dart ex exs erl hs ml r jl zig nix " +
    "dockerfile gitignore editorconfig patch diff wasm svg png jpg gif pdf").split(" "),
]);
/** File names without an extension. */
const BARE_FILES: ReadonlySet<string> = new Set([
  "Makefile",
  "Dockerfile",
  "Justfile",
  "Rakefile",
  "Gemfile",
]);

/** The words of a shell command that look like paths (`src/a.ts`, `./run.sh`, `Cargo.toml`). */
export function commandPaths(command: string): string[] {
  return command.split(/[\s;|&()<>`]+/)
    .map((word) => word.replace(/^["']+|["',:]+$/g, ""))
    .map((word) =>
      word.startsWith("-") && word.includes("=") ? word.slice(word.indexOf("=") + 1) : word
    )
    .filter((word) => !word.startsWith("-") && isPathLike(word));
}

/** The files an `apply_patch` adds, updates, deletes or moves. */
export function patchPaths(patch: string): string[] {
  return [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm)]
    .map((match) => (match[1] ?? match[2]!).trim());
}

/** The files a prompt names as `@path`, as written: not e-mail addresses or `@handles`. */
export function promptPaths(text: string): string[] {
  return [...text.matchAll(/(?:^|[\s(\[])@([^\s()\[\]'"`,;]+)/g)]
    .map((match) => match[1]!.replace(/[.:!?]+$/, ""))
    .filter(isPathLike);
}

/** True for a word that names a file or directory rather than a flag, URL, glob or variable. */
export function isPathLike(word: string): boolean {
  if (!word || word === "." || word === ".." || word === "/" || word === "~") return false;
  if (/:\/\/|[$*?{}=\\]|^\/(dev|proc)\//.test(word)) return false;
  if (!/^[\w.~\/@+-][\w.\/@+~-]*$/.test(word)) return false;
  if (word.includes("/")) return /[A-Za-z0-9_]/.test(word) && !/^@[\w-]+\/[\w.-]+$/.test(word);
  if (BARE_FILES.has(word)) return true;
  const dot = word.lastIndexOf(".");
  return dot > 0 && dot < word.length - 1 &&
      FILE_EXTENSIONS.has(word.slice(dot + 1).toLowerCase()) ||
    dot === 0 && FILE_EXTENSIONS.has(word.slice(1).toLowerCase());
}
