import { codeNames } from "../../text/code_mentions.ts";
import type { KuzuDb } from "./kuzu.ts";

/** A name matching more files than this is too vague to link. */
const MAX_MATCHES = 5;

/**
 * Links a memory to the indexed files and symbols its text names (within its
 * project, or any project for a global memory), so the graph connects what was
 * said to the code without an LLM.
 */
export async function linkCodeMentions(
  db: KuzuDb,
  id: string,
  content: string,
  project: string,
): Promise<void> {
  const { paths, symbols } = codeNames(content);
  for (const path of paths) {
    const keys = await filesNamed(db, project, path);
    if (keys.length === 0) continue;
    await db.run(
      `UNWIND $keys AS k MATCH (m:Memory {id: $id}), (f:File {key: k}) MERGE (m)-[:MENTIONS]->(f)`,
      { id, keys },
    );
  }
  if (symbols.length === 0) return;
  await db.run(
    `MATCH (m:Memory {id: $id}), (s:Symbol)
     WHERE s.name IN $names AND ($project = "" OR s.project = $project)
     MERGE (m)-[:MENTIONS]->(s)`,
    { id, names: symbols, project },
  );
}

/**
 * The keys of the indexed files of `project` (any project for "") that `path`
 * names, whole or by its end; none when it names more than a few (too vague to link).
 */
export async function filesNamed(db: KuzuDb, project: string, path: string): Promise<string[]> {
  const files = await db.run(
    `MATCH (f:File) WHERE ($project = "" OR f.project = $project) AND (f.path = $path OR f.path ENDS WITH $suffix)
     RETURN f.key AS key LIMIT ${MAX_MATCHES + 1}`,
    { project, path, suffix: `/${path}` },
  );
  return files.length > MAX_MATCHES ? [] : files.map((row) => row.key as string);
}
