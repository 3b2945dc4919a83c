/**
 * Advice that quotes a command (`cairn index PATH`) repeats the `--store` the
 * user gave, so that copying it acts on the same store, not the default one.
 * @module
 */

/** `line` with every quoted `cairn …` command given `--store storeDir` (once). */
export function withStoreInAdvice(line: string, storeDir: string): string {
  return line.replaceAll(/`cairn (?!--store )/g, `\`cairn --store ${shellWord(storeDir)} `);
}

/** `text` as one word of a shell command line, quoted when it must be. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
