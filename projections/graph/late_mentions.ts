/**
 * Links made after the fact: a memory names an entity, a file or an
 * identifier that did not exist yet when it was written; once they appear,
 * the memory is linked to them as if they had been there all along.
 * @module
 */
import { simpleName } from "../../text/code_mentions.ts";
import { type FileEvent, fileKey, symbolKey } from "./code_graph.ts";
import { filesNamed } from "./code_mentions.ts";
import type { KuzuDb } from "./kuzu.ts";
import type { CodeMentionIndex } from "./mention_index.ts";
import { NameMatcher } from "./name_matcher.ts";

/** Links the memories that named entity `name` before it existed. */
export async function linkEarlierMentions(db: KuzuDb, name: string): Promise<void> {
  const matcher = new NameMatcher();
  matcher.add(name);
  const rows = await db.run(
    "MATCH (m:Memory) WHERE lower(m.content) CONTAINS $needle RETURN m.id AS id, m.content AS content",
    { needle: name.toLowerCase() },
  );
  const ids = rows.filter((row) => matcher.match(row.content as string).length > 0)
    .map((row) => row.id as string);
  if (ids.length === 0) return;
  await db.run(
    `UNWIND $links AS l MERGE (m:Memory {id: l.id}) MERGE (e:Entity {name: l.name})
     MERGE (m)-[:MENTIONS]->(e)`,
    { links: ids.map((id) => ({ id, name })) },
  );
}

/** Links the memories that named the files and identifiers of a run of file events just applied. */
export async function linkIndexedCode(
  db: KuzuDb,
  mentions: CodeMentionIndex,
  events: readonly FileEvent[],
): Promise<void> {
  const files: Array<{ id: string; key: string }> = [];
  const symbols: Array<{ id: string; key: string }> = [];
  for (const event of events) {
    if (event.type !== "file.indexed") continue;
    const { project, path, chunks, references } = event.data;
    const key = fileKey(project, path);
    for (const mention of mentions.namingFile(project, path)) {
      // Only where the name is precise enough now, as when a memory is written.
      if ((await filesNamed(db, mention.project, mention.path)).includes(key)) {
        files.push({ id: mention.id, key });
      }
    }
    const names = new Set([...chunks, ...references].map((named) => simpleName(named.name)));
    for (const name of names) {
      for (const id of mentions.namingSymbol(project, name)) {
        symbols.push({ id, key: symbolKey(project, name) });
      }
    }
  }
  // The code was just written, so MERGE finds it, never makes it (by comparing keys along the
  // table: links are few, one per memory that named the code); the memories are matched.
  for (const [links, label] of [[files, "File"], [symbols, "Symbol"]] as const) {
    if (links.length === 0) continue;
    await db.run(
      `UNWIND $links AS l MERGE (x:${label} {key: l.key}) WITH l, x
       MATCH (m:Memory {id: l.id}) MERGE (m)-[:MENTIONS]->(x)`,
      { links },
    );
  }
}
