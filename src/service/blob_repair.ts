/**
 * Bringing back the blobs of indexed code that went missing or were damaged:
 * a chunk's text comes from a file, so where that file still holds the same
 * text, chunking it again gives the blob back, byte for byte (its hash says so).
 * Session turns have no such source kept, and stay lost.
 * @module
 */
import { join } from "node:path";
import { BlobError, type BlobStore, sha256Hex } from "../../events/blobs.ts";
import { blobsOf } from "../../events/compaction.ts";
import type { EventLog } from "../../events/log.ts";
import { chunkFile } from "../ingest/code/source_file.ts";

/** What a restore found: blobs written back, and those it could not. */
export interface BlobRestore {
  restored: number;
  lost: string[];
}

/** The hashes of every blob the log's events name that is missing or damaged. */
export async function brokenBlobs(log: EventLog, blobs: BlobStore): Promise<Set<string>> {
  const broken = new Set<string>();
  for await (const event of log.read()) {
    for (const hash of blobsOf(event)) {
      if (broken.has(hash)) continue;
      await blobs.get(hash).catch((error) => {
        if (!(error instanceof BlobError)) throw error;
        broken.add(hash);
      });
    }
  }
  return broken;
}

/** Writes back each of `broken` that a file of an indexed project still gives. */
export async function restoreCodeBlobs(
  log: EventLog,
  blobs: BlobStore,
  broken: ReadonlySet<string>,
): Promise<BlobRestore> {
  const roots = new Map<string, string>();
  const sources = new Map<string, { project: string; path: string }>();
  for await (const event of log.read()) {
    if (event.type === "project.registered") roots.set(event.data.project, event.data.root);
    if (event.type !== "file.indexed") continue;
    for (const hash of blobsOf(event)) {
      if (broken.has(hash)) {
        sources.set(hash, { project: event.data.project, path: event.data.path });
      }
    }
  }
  const restored = new Set<string>();
  const files = new Set([...sources.values()].map(({ project, path }) => `${project}\0${path}`));
  for (const file of files) {
    const [project, path] = file.split("\0") as [string, string];
    const root = roots.get(project);
    if (!root) continue;
    const text = await Deno.readTextFile(join(root, path)).catch(() => undefined);
    if (text === undefined) continue;
    const chunked = await chunkFile(path, text);
    if ("reason" in chunked) continue;
    for (const chunk of chunked.chunks) {
      const hash = await sha256Hex(chunk.text);
      if (!broken.has(hash) || restored.has(hash)) continue;
      await blobs.remove(hash);
      await blobs.put(chunk.text);
      restored.add(hash);
    }
  }
  return { restored: restored.size, lost: [...broken].filter((hash) => !restored.has(hash)) };
}
