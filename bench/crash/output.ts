/**
 * Reading what a killed process printed: acknowledged lines, and warnings shaped for counting.
 * @module
 */

import type { Tally } from "./tally.ts";

/** The complete lines of `text` (a last line cut by the kill is left out). */
export const lines = (text: string) => {
  const all = text.split("\n");
  if (!text.endsWith("\n")) all.pop(); // a line cut by the kill is not acknowledged
  return all;
};

/** Normalised for counting: ids, numbers and paths vary from kill to kill. */
export function shape(line: string): string {
  return line.replace(/mem_[a-z0-9]+/g, "mem_…").replace(/\/tmp\/\S+/g, "/tmp/…")
    .replace(/\d+/g, "N").slice(0, 300);
}

/** The last lines of a process's standard error, shaped for counting. */
export function lastLines(err: string): string {
  const own = err.trim().split("\n").filter((line) => !isOpenWarning(line));
  return shape(own.slice(-2).join(" | ").replace(/`cairn [^`]*`/g, "`cairn …`"));
}

/** A line the opening of a store prints about what a crash left (and what it did about it). */
export function isOpenWarning(line: string): boolean {
  return /^cairn: .*(torn|projection|rebuil|purge|moved|cut )/.test(line) &&
    !/stopped while answering/.test(line);
}

/**
 * Counts the warnings the first open after a kill printed; true when there was any.
 * `where` says which process printed them; `all`: every line it printed is one.
 */
export function noteWarnings(t: Tally, where: string, err: string, all = false): boolean {
  const found = err.split("\n").filter((line) => all ? line.trim() !== "" : isOpenWarning(line));
  for (const line of found) {
    const key = shape(line);
    const seen = t.warnings.get(key);
    if (seen) seen.n++;
    else t.warnings.set(key, { n: 1, example: `${where}: ${line.trim()}` });
  }
  return found.length > 0;
}
