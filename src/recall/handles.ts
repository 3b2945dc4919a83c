/**
 * The handles answers print for what they found, which `cairn open` and the
 * `open` tool take back (see `src/service/open_item.ts`).
 * @module
 */

/**
 * The short handle of a turn: its session's first 8 characters and its line
 * (`3f2a9c1b:57`).
 */
export function turnHandle(session: string, line: number): string {
  return `${session.slice(0, 8)}:${line}`;
}
