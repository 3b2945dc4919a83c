import { chunkCode, type CodeReference, ParseTimeoutError } from "./chunk.ts";
import { languageOf, LANGUAGES, loadLanguage } from "./languages.ts";
import type { TextChunk } from "./pieces.ts";
import { chunkMarkdown, chunkText } from "./prose.ts";
import { redactSecrets } from "../redact.ts";

/** A file cut into chunks, ready to become a `file.indexed` event. */
export interface ChunkedFile {
  language: string;
  chunks: TextChunk[];
  references: CodeReference[];
}

/**
 * The chunker's version, stamped on every `file.indexed` event. Raise it
 * when the same text would now be cut into different chunks: files indexed
 * by an older chunker are chunked again at their next index, whatever their
 * mtime, and only chunks whose text changed need a new embedding.
 */
export const CHUNKER_VERSION = 3;

const MARKDOWN = /\.(md|markdown|mdx)$/i;

/** Every language a chunk can be filed under, for filters and their error messages. */
export const LANGUAGE_NAMES: readonly string[] = [
  ...LANGUAGES.map((language) => language.id),
  "markdown",
  "text",
];

/** What people also call the languages of {@linkcode LANGUAGE_NAMES}. */
const LANGUAGE_ALIASES: Readonly<Record<string, string>> = {
  golang: "go",
  py: "python",
  python3: "python",
  js: "javascript",
  jsx: "javascript",
  node: "javascript",
  ts: "typescript",
  rs: "rust",
  "c++": "cpp",
  cc: "cpp",
  cxx: "cpp",
  "c#": "csharp",
  cs: "csharp",
  rb: "ruby",
  md: "markdown",
  txt: "text",
};

/** The language `name` means, whatever its case or common alias (`Go`, `golang`, `py`); undefined if none. */
export function languageNamed(name: string): string | undefined {
  const lower = name.trim().toLowerCase();
  const known = LANGUAGE_ALIASES[lower] ?? lower;
  return LANGUAGE_NAMES.includes(known) ? known : undefined;
}

/** The language cairn files a path under: a tree-sitter language, `markdown`, or `text`. */
export function languageOfPath(path: string): string {
  return languageOf(path)?.id ?? (MARKDOWN.test(path) ? "markdown" : "text");
}

/**
 * Chunks one file's text by what it is: source code with tree-sitter,
 * markdown by headings, anything else in line windows, each chunk with its
 * secrets redacted. A file the parser chokes on gives a reason instead.
 */
export async function chunkFile(
  path: string,
  text: string,
): Promise<ChunkedFile | { reason: string }> {
  const chunked = await chunkWhole(path, text);
  if ("reason" in chunked) return chunked;
  // Secrets in code (a key pasted in a config module) are never stored or indexed.
  const chunks = chunked.chunks.map((chunk) => ({
    ...chunk,
    text: redactSecrets(chunk.text).text,
  }));
  return { ...chunked, chunks };
}

async function chunkWhole(path: string, text: string): Promise<ChunkedFile | { reason: string }> {
  const spec = languageOf(path);
  if (spec) {
    const language = await loadLanguage(spec);
    try {
      return { language: spec.id, ...chunkCode(text, language, path) };
    } catch (error) {
      if (error instanceof ParseTimeoutError) return { reason: "parser timed out" };
      return { reason: `parser failed (${(error as Error).message})` };
    }
  }
  if (MARKDOWN.test(path)) {
    return { language: "markdown", chunks: chunkMarkdown(text, path), references: [] };
  }
  return { language: "text", chunks: chunkText(text, path), references: [] };
}
