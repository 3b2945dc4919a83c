/**
 * A turn's text cut into windows the embedding model can read whole: a long
 * turn (a prompt, pages of answers, dozens of tool calls) would otherwise be
 * embedded by its first 512 tokens only. Each window after the first starts
 * with the prompt's first line, so it still says what was asked.
 * @module
 */

/** Characters a window holds: about 400 tokens of prose, under the model's 512 with the prompt line. */
export const WINDOW_CHARS = 1500;
/** Characters of the prompt repeated at the head of later windows. */
const PROMPT_HEAD_CHARS = 200;

/**
 * Cuts `text` (as built by `turnText`: the `User:` line first) into windows of
 * whole lines of at most `maxChars` characters; a longer line is cut inside.
 * A turn that fits is one window, itself.
 *
 * @example
 * ```ts
 * turnWindows("User: fix it\nAssistant: done"); // ["User: fix it\nAssistant: done"]
 * ```
 */
export function turnWindows(text: string, maxChars = WINDOW_CHARS): string[] {
  if (text.length <= maxChars) return [text];
  const head = text.split("\n", 1)[0]!.slice(0, PROMPT_HEAD_CHARS);
  const pieceChars = maxChars - head.length - 1;
  const pieces = text.split("\n").flatMap((line) => {
    const cuts = [];
    for (let start = 0; start < line.length; start += pieceChars) {
      cuts.push(line.slice(start, start + pieceChars));
    }
    return cuts.length > 0 ? cuts : [line];
  });
  const windows: string[] = [];
  let current: string[] = [];
  let size = 0;
  const flush = () => {
    windows.push(windows.length === 0 ? current.join("\n") : `${head}\n${current.join("\n")}`);
    current = [];
    size = 0;
  };
  for (const piece of pieces) {
    const room = windows.length === 0 ? maxChars : pieceChars;
    if (current.length > 0 && size + piece.length > room) flush();
    current.push(piece);
    size += piece.length + 1;
  }
  flush();
  return windows;
}
