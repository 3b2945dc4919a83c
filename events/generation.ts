/**
 * Generations of segment files: writing a set of segments, committing it by
 * replacing the manifest, and clearing what a crash left behind.
 * @module
 */
import { join } from "node:path";
import { syncDir, writeAll } from "./durable_fs.ts";
import { type Manifest, writeManifest } from "./manifest.ts";
import { wipe } from "./bytes.ts";
import { encodeRecord } from "./record.ts";
import { LogCorruptError } from "./log.ts";
import { SEGMENT_HEADER, segmentName } from "./segment.ts";

/** A segment file of the log. */
export interface Segment {
  file: string;
  firstSeq: number;
  /** Committed length in bytes: readers never look past it. */
  bytes: number;
}

/**
 * Writes records into fresh segment files of `generation` (fsynced), deleting
 * them again if anything fails. The caller commits them with {@linkcode commitGeneration}.
 */
export async function writeGeneration(
  dir: string,
  records: AsyncIterable<{ seq: number; payload: unknown }>,
  generation: number,
  segmentBytes: number,
): Promise<Segment[]> {
  const written: Segment[] = [];
  let file: Deno.FsFile | undefined;
  try {
    for await (const { seq, payload } of records) {
      const record = encodeRecord(seq, payload);
      const current = written.at(-1);
      if (!file || !current || current.bytes + record.length > segmentBytes) {
        if (file) await closeSynced(file);
        const name = segmentName(seq, generation);
        file = await createSegment(join(dir, name));
        written.push({ file: name, firstSeq: seq, bytes: SEGMENT_HEADER.length });
      }
      await writeAll(file, record);
      written.at(-1)!.bytes += record.length;
      wipe(record);
    }
    if (file) await closeSynced(file);
    file = undefined;
    await syncDir(dir);
    return written;
  } catch (error) {
    file?.close();
    for (const segment of written) await Deno.remove(join(dir, segment.file)).catch(() => {});
    throw error;
  }
}

/**
 * Makes a written generation the log: replacing the manifest is the atomic
 * commit point; the previous generation's files are removed afterwards.
 */
export async function commitGeneration(
  dir: string,
  segments: readonly Segment[],
  generation: number,
  minHead: number,
): Promise<Manifest> {
  const manifest: Manifest = {
    format: 1,
    generation,
    minHead,
    segments: manifestEntries(segments),
  };
  await writeManifest(dir, manifest);
  await removeLeftovers(dir, manifest);
  await syncDir(dir);
  return manifest;
}

/** The manifest's list of `segments`: each sealed one (all but the last) with its length. */
export function manifestEntries(segments: readonly Segment[]): Manifest["segments"] {
  return segments.map(({ file, firstSeq, bytes }, i) =>
    i < segments.length - 1 ? { file, firstSeq, bytes } : { file, firstSeq }
  );
}

/** Creates a segment file with its header, synced. */
export async function createSegment(path: string): Promise<Deno.FsFile> {
  const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  await writeAll(file, SEGMENT_HEADER);
  await file.sync();
  return file;
}

async function closeSynced(file: Deno.FsFile): Promise<void> {
  await file.sync();
  file.close();
}

/**
 * Deletes segment files the manifest does not list (a crashed roll or
 * compaction) and temporary files. Refuses, deleting nothing, when a segment
 * of the manifest's own generation past its last one holds records: the
 * manifest is out of date, and those records are events.
 */
export async function removeLeftovers(dir: string, manifest: Manifest): Promise<void> {
  const ahead = await segmentsAhead(dir, manifest);
  if (ahead.length > 0) {
    throw new LogCorruptError(
      `log ${dir} has segments its manifest does not list, holding events past it: ` +
        `${ahead.join(", ")}. Nothing was deleted; run \`cairn verify --repair\` to take them back`,
      join(dir, ahead[0]!),
    );
  }
  const live = new Set(manifest.segments.map((segment) => segment.file));
  for await (const entry of Deno.readDir(dir)) {
    const stray = entry.name.endsWith(".tmp") ||
      entry.name.endsWith(".seg") && !live.has(entry.name);
    if (stray) await Deno.remove(join(dir, entry.name));
  }
}

/**
 * Segment files of the manifest's generation that start after its last
 * segment and hold records, in order. A roll that crashed before its manifest
 * was written leaves one with the header alone, which is not counted.
 */
export async function segmentsAhead(dir: string, manifest: Manifest): Promise<string[]> {
  const last = manifest.segments.at(-1)?.firstSeq ?? 0;
  const ahead: Array<{ name: string; first: number }> = [];
  for await (const entry of Deno.readDir(dir)) {
    const match = SEGMENT_FILE.exec(entry.name);
    if (!match || Number(match[2]) !== manifest.generation || Number(match[1]) <= last) continue;
    const { size } = await Deno.stat(join(dir, entry.name));
    if (size > SEGMENT_HEADER.length) ahead.push({ name: entry.name, first: Number(match[1]) });
  }
  return ahead.sort((a, b) => a.first - b.first).map((segment) => segment.name);
}

/** A segment file's name: first sequence number and generation. */
export const SEGMENT_FILE = /^(\d{16})\.(\d+)\.seg$/;
