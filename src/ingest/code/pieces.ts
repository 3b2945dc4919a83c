/** Characters a chunk's body aims to stay under (about 400 tokens of code). */
export const CHUNK_BUDGET = 1500;
/** Lines between definitions shorter than this join the next piece (imports, headers, comments). */
export const SMALL_GAP = 400;
/** Definitions shorter than this (one-liners) merge with their tiny neighbours. */
export const TINY_DEFINITION = 80;
/** Lines repeated at the start of the next part when a large piece is split. */
export const OVERLAP_LINES = 3;
/** A line longer than this is cut: no chunk carries a whole minified line. */
const MAX_LINE = 2 * CHUNK_BUDGET;

/** A run of lines of a file that belongs to one definition, section or window. */
export interface Piece {
  /** First line, 0-based. */
  start: number;
  /** Last line, 0-based, inclusive. */
  end: number;
  kind: string;
  /** Qualified name (`Request.register_hook`), heading, or file name. */
  name: string;
  /** What encloses it (`class Request`), shown as `in class Request` on top of the chunk. */
  scope?: string;
  /** Pieces merge only with neighbours of the same group (the same enclosing scope). */
  group: string;
  /** A definition's own lines, as opposed to the lines between definitions. */
  definition: boolean;
  /** The first lines of a definition that holds others (a class's header): kept under its name. */
  header?: boolean;
}

/** A chunk as cairn stores it: 1-based inclusive lines and the text to search and embed. */
export interface TextChunk {
  start_line: number;
  end_line: number;
  kind: string;
  name: string;
  /** The scope line (if any), then the lines themselves. */
  text: string;
}

/**
 * Turns pieces into chunks within the budget: pieces with nothing but
 * punctuation go; small runs of lines between definitions (imports, a class's
 * header, comments) join the next piece of their scope, or the previous one;
 * one-line definitions merge with their one-line neighbours (the first one's
 * name stands for the merge); large pieces are split in line windows that
 * overlap by {@linkcode OVERLAP_LINES}.
 */
export function piecesToChunks(lines: readonly string[], pieces: readonly Piece[]): TextChunk[] {
  const size = (piece: Piece) => lines.slice(piece.start, piece.end + 1).join("\n").length;
  const fits = (a: Piece, b: Piece) => size({ ...a, end: b.end }) <= CHUNK_BUDGET;
  const kept = pieces.filter((piece) =>
    /[\p{L}\p{N}]/u.test(lines.slice(piece.start, piece.end + 1).join("\n"))
  );
  const merged: Piece[] = [];
  let held: Piece | undefined;
  for (const piece of kept) {
    if (held) {
      if (held.group === piece.group && held.end < piece.start && fits(held, piece)) {
        merged.push({ ...piece, start: held.start });
        held = undefined;
        continue;
      }
      pushMerged(merged, held, fits);
      held = undefined;
    }
    if (!piece.definition && size(piece) < SMALL_GAP) held = piece;
    else pushMerged(merged, piece, fits);
  }
  if (held) pushMerged(merged, held, fits);
  return merged.flatMap((piece) => split(lines, piece));

  function pushMerged(out: Piece[], piece: Piece, fits: (a: Piece, b: Piece) => boolean) {
    const last = out.at(-1);
    const tiny = (p: Piece) => p.definition && size(p) < TINY_DEFINITION;
    const joins = last && last.group === piece.group && last.end < piece.start &&
      fits(last, piece) &&
      ((tiny(last) && tiny(piece)) ||
        (!piece.definition && !piece.header && size(piece) < SMALL_GAP));
    if (joins) out[out.length - 1] = { ...last, end: piece.end };
    else out.push(piece);
  }
}

function split(lines: readonly string[], piece: Piece): TextChunk[] {
  const chunks: TextChunk[] = [];
  let start = piece.start;
  while (start <= piece.end) {
    let end = start;
    let size = clip(lines[start] ?? "").length;
    while (end < piece.end && size + 1 + clip(lines[end + 1] ?? "").length <= CHUNK_BUDGET) {
      end++;
      size += 1 + clip(lines[end] ?? "").length;
    }
    const scope = chunks.length === 0 ? piece.scope : `${piece.kind} ${piece.name} (continued)`;
    const text = lines.slice(start, end + 1).map(clip).join("\n");
    chunks.push({
      start_line: start + 1,
      end_line: end + 1,
      kind: piece.kind,
      name: piece.name,
      text: scope ? `in ${scope}\n${text}` : text,
    });
    if (end >= piece.end) break;
    start = Math.max(start + 1, end + 1 - OVERLAP_LINES);
  }
  return chunks;
}

function clip(line: string): string {
  return line.length > MAX_LINE ? line.slice(0, MAX_LINE) : line;
}

/** Splits a text into lines, without their line ends. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}
