/**
 * The outside baselines of the code benchmark, run over the same work tree
 * as cairn: BM25 over whole source files, and files ranked by how many of the
 * query's distinct words they contain (what an agent that greps gets).
 * @module
 */
import { extname, join, relative } from "node:path";
import { LANGUAGES } from "../src/ingest/code/languages.ts";
import { Bm25 } from "./bm25.ts";

const STOP_WORDS = new Set(
  ("a an and are as at be but by can could did do does for from had has have how i if in into " +
    "is it its me my no not of on or our so than that the their them then there these they this " +
    "to too was we were what when where which while who why will with would you your").split(" "),
);

/** Words of code and prose: identifiers split at `_` and camelCase, lower-cased, stop words out. */
export function codeTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const word of text.match(/[A-Za-z0-9]+/g) ?? []) {
    for (const part of word.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/)) {
      const lower = part.toLowerCase();
      if (lower.length > 1 && !STOP_WORDS.has(lower)) tokens.push(lower);
    }
  }
  return tokens;
}

/** Whole-file rankings of one work tree for both baselines. */
export class FileBaselines {
  private constructor(
    private readonly bm25: Bm25,
    private readonly words: Map<string, Set<string>>,
  ) {}

  /**
   * Reads every source file of `languages` (cairn's names: `python`, `go`, …)
   * under `root`.
   */
  static async build(root: string, languages: readonly string[]): Promise<FileBaselines> {
    const bm25 = new Bm25(codeTokens);
    const words = new Map<string, Set<string>>();
    for await (const path of filesEndingIn(root, sourceExtensions(languages))) {
      const text = await Deno.readTextFile(path).catch(() => "");
      const file = relative(root, path);
      bm25.add(file, text);
      words.set(file, new Set(text.toLowerCase().match(/[a-z0-9_]+/g) ?? []));
    }
    return new FileBaselines(bm25, words);
  }

  /** Files by BM25 over their whole text, best first. */
  bm25Files(query: string, k: number): string[] {
    return this.bm25.search(query, k);
  }

  /** Files by how many distinct query words (stop words out) they contain, best first. */
  grepFiles(query: string, k: number): string[] {
    const terms = [...new Set(query.toLowerCase().match(/[a-z0-9_]+/g) ?? [])]
      .filter((term) => term.length > 2 && !STOP_WORDS.has(term));
    const scored = [...this.words].map(([file, words]) => ({
      file,
      hits: terms.filter((term) => words.has(term)).length,
    }));
    return scored.filter((s) => s.hits > 0)
      .sort((a, b) => b.hits - a.hits || a.file.localeCompare(b.file))
      .slice(0, k).map((s) => s.file);
  }
}

/**
 * The file name endings of `languages`, as cairn parses them; TypeScript's
 * include `.tsx`, which cairn parses with a grammar of its own.
 */
export function sourceExtensions(languages: readonly string[]): Set<string> {
  const wanted = new Set(languages.flatMap((l) => l === "typescript" ? [l, "tsx"] : [l]));
  const unknown = [...wanted].filter((id) => !LANGUAGES.some((spec) => spec.id === id));
  if (unknown.length) {
    throw new Error(`the baselines cannot read ${unknown.join(", ")}: not a language cairn parses`);
  }
  return new Set(LANGUAGES.filter((spec) => wanted.has(spec.id)).flatMap((s) => s.extensions));
}

async function* filesEndingIn(dir: string, extensions: Set<string>): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* filesEndingIn(path, extensions);
    else if (entry.isFile && extensions.has(extname(entry.name).toLowerCase())) yield path;
  }
}
