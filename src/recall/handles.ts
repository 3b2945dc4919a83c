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

/**
 * The handle of an entity: its name, or `entity:NAME` when the name could be
 * read as another handle (it starts with `mem_` or holds a colon).
 */
export function entityHandle(name: string): string {
  return name.startsWith("mem_") || name.includes(":") ? `${ENTITY_PREFIX}${name}` : name;
}

/** Names an entity whatever else its name looks like: `entity:NAME`. */
export const ENTITY_PREFIX = "entity:";
