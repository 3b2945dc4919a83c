/**
 * "Why did this file change?": the session turns that read or changed a file,
 * newest first, found through the file mentions sessions leave in the graph.
 * @module
 */
import { z } from "zod";
import type { KuzuDb } from "../../projections/graph/kuzu.ts";
import type { TextProjection } from "../../projections/text.ts";
import { type TurnRecord, turnRecords } from "./hit_details.ts";

/** Most turns one answer lists. */
export const MAX_HISTORY = 50;

/** What `history` accepts. */
export const HistoryInput = z.object({
  /** The file: relative to its project's root (`src/a.ts`), absolute, or a bare name (`a.ts`). */
  path: z.string().trim().min(1).max(4096),
  project: z.string().trim().min(1).max(200).optional(),
  limit: z.number().int().min(1).default(10),
});

/** One turn that touched the file, with what it did to it. */
export interface HistoryEntry {
  turn: TurnRecord;
  /** The file as the project knows it. */
  path: string;
  /** The tools that touched it in that turn (`Read`, `Edit`, `Bash`), each once. */
  tools: string[];
}

/** The turns that touched a file, newest first, and what to tell the caller. */
export interface FileHistory {
  entries: HistoryEntry[];
  notes: string[];
}

/**
 * The session turns that touched `path`: a project-relative path matches
 * itself, an absolute path matches the project file it ends with, and a bare
 * name matches every file of that name.
 */
export async function fileHistory(
  db: KuzuDb,
  text: TextProjection,
  input: z.input<typeof HistoryInput>,
): Promise<FileHistory> {
  const { path, project, limit } = HistoryInput.parse(input);
  const notes: string[] = [];
  if (limit > MAX_HISTORY) notes.push(`limit capped at ${MAX_HISTORY}`);
  const wanted = path.replaceAll("\\", "/").replace(/^\.\//, "");
  const rows = await db.run(
    `MATCH (t:Turn)-[r:TOUCHED]->(f:File)
     WHERE ($project = '' OR f.project = $project)
       AND (f.path = $path OR ends_with($path, '/' + f.path) OR ends_with(f.path, '/' + $path))
     RETURN t.key AS id, f.path AS path, collect(DISTINCT r.tool) AS tools,
       t.started_at AS started
     ORDER BY started DESC, id
     LIMIT $limit`,
    { project: project ?? "", path: wanted, limit: Math.min(limit, MAX_HISTORY) },
  );
  const turns = await turnRecords(db, text, rows.map((row) => row.id as string));
  const entries = rows.flatMap((row) => {
    const turn = turns.get(row.id as string);
    return turn
      ? [{ turn, path: row.path as string, tools: (row.tools as string[]).toSorted() }]
      : [];
  });
  if (entries.length === 0) {
    notes.push(`no ingested session touched ${path}; run \`cairn ingest claude\` or \`codex\``);
  }
  return { entries, notes };
}

/** A history as compact markdown: one line per turn. */
export function formatHistory(history: FileHistory): string {
  const lines = history.entries.map(({ turn, path, tools }) =>
    `- ${turn.started_at.slice(0, 16).replace("T", " ")} session ${turn.session.slice(0, 8)} ` +
    `(${tools.join(", ")} ${path}): ${turn.text.replace(/\s+/g, " ").trim().slice(0, 300)}`
  );
  return [...lines, ...history.notes.map((note) => `> ${note}`)].join("\n");
}
