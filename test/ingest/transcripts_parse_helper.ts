import type { Entry, Parsed, TranscriptFormat } from "../../src/ingest/transcripts/entry.ts";
import { readLinesFrom } from "../../src/ingest/transcripts/jsonl.ts";

/**
 * Real Claude Code transcripts recorded by others, in ../shared/fixtures beside
 * this repository on the machines that have them: read where they are, never
 * copied here. A plain clone does not have them.
 */
export const SHARED_TRANSCRIPTS = new URL(
  "../../../shared/fixtures/claude-code-transcripts/",
  import.meta.url,
).pathname;

/** True when ../shared/fixtures/claude-code-transcripts is beside this clone. */
export const SHARED_PRESENT = (() => {
  try {
    return Deno.statSync(SHARED_TRANSCRIPTS).isDirectory;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
})();

/** Why a test that reads ../shared is skipped in a clone without it. */
const SHARED_MISSING = "needs ../shared/fixtures/claude-code-transcripts (not beside this clone)";

/**
 * The `name` and `ignore` of a test that reads ../shared: skipped when the
 * folder is absent, and then saying why in its name (the one line
 * `deno test --quiet` shows of a skipped test) and in a line printed as the
 * test file loads (shown without `--quiet`).
 */
export function sharedOnly(name: string): { name: string; ignore: boolean } {
  if (SHARED_PRESENT) return { name, ignore: false };
  console.log(`skipped: ${name} ${SHARED_MISSING}`);
  return { name: `${name} (skipped: ${SHARED_MISSING})`, ignore: true };
}

/** This project's synthetic transcripts. */
export const OWN_TRANSCRIPTS = new URL("../fixtures/transcripts/", import.meta.url).pathname;

/**
 * This project's own Claude Code sessions, written in the format Claude Code
 * records (queue operations, prompts, tool calls and their results, hook
 * feedback): one prompt each.
 */
export const OWN_SESSIONS = new URL("../fixtures/transcripts/claude-sessions/", import.meta.url)
  .pathname;

/** Every record of a transcript parsed, with its entries and the torn last line if any. */
export async function parseFile(path: string, format: TranscriptFormat) {
  const { lines, partial } = await readLinesFrom(path, 0, 0);
  const parser = format.newParser();
  const parsed: Parsed[] = lines.map((line) => parser.parse(JSON.parse(line.text), line));
  const entries: Entry[] = parsed.flatMap((p) => p.entries);
  return { lines, partial, parsed, entries };
}
