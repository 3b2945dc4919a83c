import { z } from "zod";
import { join } from "node:path";
import { exists, writeFileAtomic } from "./durable_fs.ts";
import { LogCorruptError } from "./log.ts";

const ManifestSchema = z.object({
  format: z.literal(1),
  /** Compaction generation; segment files of other generations are leftovers. */
  generation: z.number().int().nonnegative(),
  /** The head never goes below this, even when compaction dropped the last events. */
  minHead: z.number().int().nonnegative(),
  segments: z.array(z.object({
    file: z.string(),
    firstSeq: z.number().int().positive(),
    /**
     * Length of a sealed segment (every one but the last), so opening the log
     * needs only its size, not a scan; manifests written before it was kept
     * lack it, and their sealed segments are scanned until the next roll.
     */
    bytes: z.number().int().positive().optional(),
  })),
});

/** The list of a log's segments, in order; replacing it is the commit point of a roll or compaction. */
export type Manifest = z.infer<typeof ManifestSchema>;

/**
 * The log's head: the last sequence number it gave out, which events dropped
 * on purpose (a purge, a compaction) still count, so it can be past the last
 * event `lastSeq` that a segment holds.
 */
export function logHead(lastSeq: number, manifest: Manifest): number {
  return Math.max(lastSeq, (manifest.segments.at(-1)?.firstSeq ?? 1) - 1, manifest.minHead);
}

/** The manifest's file name inside the log directory. */
export const MANIFEST_FILE = "MANIFEST";

/** Reads the manifest, or returns undefined for a log directory that has none yet. */
export async function readManifest(dir: string): Promise<Manifest | undefined> {
  const path = join(dir, MANIFEST_FILE);
  if (!await exists(path)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(await Deno.readTextFile(path));
  } catch (error) {
    throw new LogCorruptError(
      `log manifest ${path} is unreadable (${
        (error as Error).message
      }); run \`cairn verify --repair\``,
      path,
    );
  }
  const parsed = ManifestSchema.safeParse(raw);
  if (!parsed.success) {
    throw new LogCorruptError(
      `log manifest ${path} is malformed; run \`cairn verify --repair\``,
      path,
    );
  }
  return parsed.data;
}

/** Atomically replaces the manifest. */
export async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  await writeFileAtomic(join(dir, MANIFEST_FILE), JSON.stringify(manifest, null, 1));
}
