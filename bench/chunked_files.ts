/**
 * The files of a tree as cairn's index cuts them: the scan's files, read and
 * chunked in-process (no store), for the suites that count or embed chunks.
 * @module
 */
import type { TextChunk } from "../src/ingest/code/pieces.ts";
import { readSource, scan } from "../src/ingest/code/scan.ts";
import { chunkFile } from "../src/ingest/code/source_file.ts";

/** Each file under `root` that the scan keeps and the chunker cuts, with its chunks, in scan order. */
export async function* chunkedFiles(
  root: string,
): AsyncGenerator<{ path: string; chunks: TextChunk[] }> {
  for (const file of (await scan(root)).files) {
    const source = await readSource(file);
    if ("reason" in source) continue;
    const chunked = await chunkFile(file.path, source.text);
    if (!("reason" in chunked)) yield { path: file.path, chunks: chunked.chunks };
  }
}
