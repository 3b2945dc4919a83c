/**
 * The code a query names. Agents paste what went wrong: a traceback names
 * the functions it went through and their files, an issue names the class
 * or the method it is about (`PolyFit`, `Request.register_hook()`,
 * `resolve_redirects`). Those names are the strongest pointers a question
 * holds, and BM25 weighs them like any other word among hundreds.
 * @module
 */
import { namesSymbol } from "./symbol_query.ts";

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

/** File names and web addresses look qualified but name no definition. */
const NOT_CODE =
  /\.(?:py|pyi|pyx|js|mjs|cjs|ts|tsx|jsx|rs|go|java|c|h|cc|cpp|hpp|rb|cs|php|md|rst|txt|json|toml|cfg|ini|ya?ml|html|css|com|org|io|net)$/i;
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

/** Whether a frame's printed file is the indexed file at `path` (relative to its project's root). */
export function framePathIs(printed: string, path: string): boolean {
  const normalised = printed.replaceAll("\\", "/").replace(/^file:\/\//, "");
  return normalised === path || normalised.endsWith(`/${path}`);
}

/** A definition found by name: a code chunk with its qualified name and its file. */
export interface Definition {
  id: string;
  name: string;
  path: string;
}

/** The code chunks whose qualified name's last part is `name` (`register_hook`). */
export type DefinitionLookup = (name: string) => Definition[];

/**
 * More definitions than this under one name that the query gives without a
 * file, and the name says too little (`__init__`, `get`, `run`).
 */
const MAX_NAMESAKES = 5;

/**
 * The definitions the mentions name, as a ranked list: each mention's
 * definitions share its rank. A qualified name that names nothing is tried
 * without its leading parts (`so.PolyFit` as `PolyFit`); a frame keeps the
 * definitions in its file only.
 */
export function mentionedDefinitions(
  mentions: readonly CodeMention[],
  lookup: DefinitionLookup,
): string[][] {
  const list: string[][] = [];
  for (const mention of mentions) {
    const parts = mention.name.split(".");
    const namesakes = lookup(parts.at(-1)!).filter((definition) =>
      mention.path === undefined || framePathIs(mention.path, definition.path)
    );
    for (let from = 0; from < parts.length; from++) {
      const symbol = parts.slice(from).join(".");
      const named = namesakes.filter((definition) => namesSymbol(definition.name, symbol));
      if (named.length === 0) continue;
      if (mention.path !== undefined || named.length <= MAX_NAMESAKES) {
        list.push(named.map((definition) => definition.id));
      }
      break;
    }
  }
  return list;
}
