import { z } from "zod";

/** A sha256 hex digest naming a blob in the blob store. */
export const BlobRef = z.string().regex(/^[0-9a-f]{64}$/);

/** A project (an indexed root) was registered. */
export const ProjectRegistered = z.object({
  type: z.literal("project.registered"),
  v: z.literal(1),
  data: z.object({
    project: z.string().min(1),
    root: z.string().min(1),
    git_root: z.string().optional(),
  }),
});

/** A project and its code index were deleted (memories stay). */
export const ProjectDeleted = z.object({
  type: z.literal("project.deleted"),
  v: z.literal(1),
  data: z.object({ project: z.string().min(1) }),
});

/** One definition-sized piece of a file; its text lives in the blob store. */
export const Chunk = z.object({
  id: z.string().min(1),
  start_line: z.number().int().positive(),
  end_line: z.number().int().positive(),
  kind: z.string(),
  name: z.string(),
  text: BlobRef,
});

/** A reference by name from a file to a symbol (call, import, extends). */
export const SymbolReference = z.object({
  name: z.string().min(1),
  kind: z.enum(["call", "import", "extends"]),
  line: z.number().int().positive(),
});

/** A file was (re)indexed; it supersedes every earlier event about the same file. */
export const FileIndexed = z.object({
  type: z.literal("file.indexed"),
  v: z.literal(1),
  data: z.object({
    project: z.string().min(1),
    path: z.string().min(1),
    hash: z.string(),
    size: z.number().int().nonnegative(),
    mtime_ms: z.number(),
    language: z.string(),
    /** The chunker that cut it (absent: the first one). */
    chunker: z.number().int().positive().optional(),
    chunks: z.array(Chunk),
    /**
     * How many of its chunks, from the first, get a vector (absent: all of
     * them); the rest are searched by their words only.
     */
    embedded_chunks: z.number().int().positive().optional(),
    references: z.array(SymbolReference),
  }),
});

/** The chunks of a `file.indexed` event that get a vector: the first `embedded_chunks`, or all. */
export function embeddedChunksOf<T>(
  data: { chunks: readonly T[]; embedded_chunks?: number | undefined },
): T[] {
  return data.chunks.slice(0, data.embedded_chunks);
}

/** A file left the index (deleted, renamed away, or newly ignored). */
export const FileRemoved = z.object({
  type: z.literal("file.removed"),
  v: z.literal(1),
  data: z.object({ project: z.string().min(1), path: z.string().min(1) }),
});

/**
 * A project's history was read: which of its indexed files its last commits
 * changed together (see `src/ingest/code/history.ts`); it supersedes the
 * project's earlier history.
 */
export const ProjectHistoryRead = z.object({
  type: z.literal("project.history_read"),
  v: z.literal(1),
  data: z.object({
    project: z.string().min(1),
    /** The commit the history was read from. */
    head: z.string().min(1),
    /** How many commits were read. */
    commits: z.number().int().nonnegative(),
    /** Each file's most frequent partners (not symmetric: a hub keeps only its own five). */
    pairs: z.array(z.object({
      file: z.string().min(1),
      partner: z.string().min(1),
      commits: z.number().int().positive(),
    })),
  }),
});
