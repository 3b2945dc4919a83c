/**
 * The part of a found text that answers the question: the sentence sharing
 * the most of the query's words, widened with its neighbours to a length, or
 * for code the definition's signature with the lines that match. An answer
 * that shows the start of every hit hides the sentence that answers when it
 * is further in.
 * @module
 */
import { codeTokens } from "../../text/tokens.ts";

/** Marks text left out of a window. */
const ELLIPSIS = "…";
/** Marks where a text's next line starts, once its lines are joined into one. */
const NEW_LINE = "· ";
/** Marks code lines left out between the lines shown. */
const GAP = "⋮";
/** Longest code line shown whole; a longer one (prose, minified code) is cut. */
const LINE_CHARS = 120;

/** A piece of a text and where it starts. */
interface Piece {
  text: string;
  start: number;
}

/**
 * The window of `text` (whitespace collapsed) of at most about `maxChars`
 * around the sentence that shares the most distinct words with `query`,
 * widened by the sentences after and before it; `…` marks a cut. With no
 * word in common, the start of the text.
 *
 * @example
 * ```ts
 * answeringWindow("We met on Monday. The retry limit is 7 because of Stripe. Lunch was late.",
 *   "how many retries?", 40); // "… The retry limit is 7 because of Stripe. …"
 * ```
 */
export function answeringWindow(text: string, query: string, maxChars: number): string {
  const sentences = splitSentences(text);
  const flat = sentences.map((sentence) => sentence.text).join(" ");
  if (flat.length <= maxChars) return flat;
  const wanted = new Set(codeTokens(query));
  const scores = sentences.map((s) => matchedTerms(s.text, wanted));
  const best = scores.reduce((top, score, i) => (score > scores[top]! ? i : top), 0);
  if (scores[best] === 0) return cutAfter(flat, 0, maxChars);
  const chosen = sentences[best]!;
  if (chosen.text.length >= maxChars) return cutAround(flat, chosen, wanted, maxChars);
  let first = best;
  let last = best;
  let length = chosen.text.length;
  for (let grew = true; grew;) {
    grew = false;
    const next = sentences[last + 1];
    if (next && length + 1 + next.text.length <= maxChars) {
      last++;
      length += 1 + next.text.length;
      grew = true;
    }
    const previous = sentences[first - 1];
    if (previous && length + 1 + previous.text.length <= maxChars) {
      first--;
      length += 1 + previous.text.length;
      grew = true;
    }
  }
  const opening = sentences[first]!;
  const start = opening.start + (opening.text.startsWith(NEW_LINE) ? NEW_LINE.length : 0);
  // What room is left goes to the start of the next sentence, cut at a space.
  return cutAfter(flat, start, Math.max(length, maxChars - (start > 0 ? 2 : 0)));
}

/**
 * The lines of a code chunk worth showing for `query`: its definition's line
 * (the first naming `name`, past a doc comment; the first line without a
 * name; `signature` instead when the chunk continues a definition that starts
 * in an earlier part) and the `matched` lines sharing the most of the query's
 * words, in file order, `⋮` where lines are left out, each cut to 120
 * characters. With no match, the lines from the definition's on.
 */
export function codeExcerpt(
  text: string,
  query: string,
  { matched = 3, signature, name }: { matched?: number; signature?: string; name?: string } = {},
): string {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const head = signature === undefined ? definitionIndex(lines, name) : undefined;
  const wanted = new Set(codeTokens(query));
  const best = lines.map((line, index) => ({ index, score: matchedTerms(line, wanted) }))
    .filter((line) => line.score > 0 && line.index !== head)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, matched)
    .map((line) => line.index);
  const from = head ?? 0;
  const shown = best.length === 0
    ? lines.slice(from, from + matched + 1).map((_, i) => from + i)
    : [...(head === undefined ? [] : [head]), ...best].sort((a, b) => a - b);
  const out = signature === undefined ? [] : [cut(signature)];
  let previous = signature === undefined ? -1 : -2;
  for (const index of shown) {
    if (index > previous + 1) out.push(GAP);
    out.push(cut(lines[index]!));
    previous = index;
  }
  if (previous < lines.length - 1) out.push(GAP);
  return out.join("\n");
}

/**
 * The line of a chunk that defines `name` (the first naming its last part,
 * `send` of `Request.send`), past a doc comment or decorator; when no line
 * names it or no name is given, the first line that says something (not a
 * bare comment opener such as `"""` or `#`).
 */
export function definitionLine(text: string, name?: string): string | undefined {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return lines[definitionIndex(lines, name)];
}

/** A line of comment punctuation alone: an opening or closing block comment, `"""`, `#`, `//`. */
const BARE_COMMENT = /^\s*(\/\*+|\*+\/?|"""|'''|#+|\/\/+|<!--|-->)\s*$/;

function definitionIndex(lines: readonly string[], name: string | undefined): number {
  const last = name?.split(/[.:#/\\]+/).filter(Boolean).at(-1);
  const saying = Math.max(0, lines.findIndex((line) => !BARE_COMMENT.test(line)));
  if (!last) return saying;
  const escaped = last.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const named = new RegExp(`(^|[^\\w$])${escaped}([^\\w$]|$)`);
  const at = lines.findIndex((line) => named.test(line));
  return at < 0 ? saying : at;
}

/** A code line cut to {@linkcode LINE_CHARS}. */
function cut(line: string): string {
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}${ELLIPSIS}` : line;
}

/**
 * The sentences and lines of a text, whitespace collapsed, with where each
 * starts in the pieces joined by a space; a piece that starts a line of its
 * own (a transcript's `User answered …` after its prompt) starts with `· `,
 * unless it starts with an arrow (a tool call's line), so lines do not run
 * together when joined.
 */
function splitSentences(text: string): Piece[] {
  const pieces: Piece[] = [];
  let start = 0;
  for (const line of text.split("\n")) {
    line.split(/(?<=[.!?])\s+(?=\S)/).forEach((sentence, i) => {
      const flat = sentence.replace(/\s+/g, " ").trim();
      if (!flat) return;
      const mark = pieces.length > 0 && i === 0 && !flat.startsWith("→") ? NEW_LINE : "";
      pieces.push({ text: `${mark}${flat}`, start });
      start += mark.length + flat.length + 1;
    });
  }
  return pieces;
}

/** How many of the `wanted` terms the text holds. */
function matchedTerms(text: string, wanted: ReadonlySet<string>): number {
  if (wanted.size === 0) return 0;
  let count = 0;
  for (const term of new Set(codeTokens(text))) if (wanted.has(term)) count++;
  return count;
}

/** At most `maxChars` of `text` from `start`, cut at a space. */
function cutAfter(text: string, start: number, maxChars: number): string {
  const end = start + maxChars >= text.length
    ? text.length
    : Math.max(text.lastIndexOf(" ", start + maxChars), start + 1);
  return `${start > 0 ? `${ELLIPSIS} ` : ""}${text.slice(start, end).trim()}${
    end < text.length ? ` ${ELLIPSIS}` : ""
  }`;
}

/** `maxChars` of a sentence longer than that, starting a little before its first matched word. */
function cutAround(
  text: string,
  sentence: Piece,
  wanted: ReadonlySet<string>,
  maxChars: number,
): string {
  const words = [...sentence.text.matchAll(/\S+/g)];
  const hit = words.find((word) => codeTokens(word[0]).some((term) => wanted.has(term)));
  const at = sentence.start + (hit?.index ?? 0);
  const start = Math.max(sentence.start, text.lastIndexOf(" ", Math.max(0, at - maxChars / 4)) + 1);
  return cutAfter(text, start, maxChars);
}

/**
 * A chunk's text without the scope line the chunker writes on top of it
 * (`in class Request`, `in method Request.send (continued)`, `in section
 * Install`): the label already names the definition.
 */
export function withoutScope(text: string): string {
  return text.replace(SCOPE_LINE, "");
}

/** The chunker's scope line: `in KIND NAME`, KIND one of the kinds it names chunks by. */
const SCOPE_LINE =
  /^in (class|module|impl|struct|interface|namespace|enum|method|function|section|document|text) [^\n]*\n/;

/** The start of `text` on one line (whitespace collapsed), cut to `chars` with `…`. */
export function startOf(text: string, chars: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > chars ? `${line.slice(0, chars - 1)}…` : line;
}
