import type { Entry, Parsed, TranscriptFormat } from "../../src/ingest/transcripts/entry.ts";
import { readLinesFrom } from "../../src/ingest/transcripts/jsonl.ts";

/** The real Claude Code transcripts in ../shared/fixtures, read where they are. */
export const SHARED_TRANSCRIPTS = new URL(
  "../../../shared/fixtures/claude-code-transcripts/",
  import.meta.url,
).pathname;

/** This project's synthetic transcripts. */
export const OWN_TRANSCRIPTS = new URL("../fixtures/transcripts/", import.meta.url).pathname;

/** Every record of a transcript parsed, with its entries and the torn last line if any. */
export async function parseFile(path: string, format: TranscriptFormat) {
  const { lines, partial } = await readLinesFrom(path, 0, 0);
  const parser = format.newParser();
  const parsed: Parsed[] = lines.map((line) => parser.parse(JSON.parse(line.text), line));
  const entries: Entry[] = parsed.flatMap((p) => p.entries);
  return { lines, partial, parsed, entries };
}
