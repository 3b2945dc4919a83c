/**
 * The text a code chunk's vector is computed from. A model may read code as
 * its words: each run of punctuation becomes one space, so identifiers,
 * numbers and comments stay and a long function fits more of itself into the
 * model's window (Python's punctuation is about a third of its tokens).
 * @module
 */

/** How a model reads the code chunks it embeds: as written, or as their words. */
export type CodeReading = "text" | "words";

/** The languages of files that are not code: markdown and plain text, which every model reads as written. */
export const PROSE_LANGUAGES: readonly string[] = ["markdown", "text"];

/** ASCII punctuation but `_`, which joins the words of an identifier. */
const PUNCTUATION_RUN = /[!-/:-@[-^`{-~]+/g;

/**
 * `text` as its words: each run of ASCII punctuation (all of it but `_`)
 * becomes a space, and runs of spaces and tabs one space; lines stay.
 *
 * @example
 * ```ts
 * codeWords("if self.analyzer and '.'.join(self.objpath):"); // "if self analyzer and join self objpath "
 * ```
 */
export function codeWords(text: string): string {
  return text.replace(PUNCTUATION_RUN, " ").replace(/[ \t]+/g, " ");
}

/**
 * What is embedded for a chunk of the file at `path` in `language`: the path,
 * a newline and the chunk's text, read as its words when the model reads code
 * that way and the file is code.
 */
export function embeddedChunkText(
  path: string,
  language: string,
  text: string,
  reading: CodeReading = "text",
): string {
  const code = reading === "words" && !PROSE_LANGUAGES.includes(language);
  return `${path}\n${code ? codeWords(text) : text}`;
}
