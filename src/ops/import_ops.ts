/**
 * `import`: memory records from a JSONL file (the benchmark format), or the
 * official MCP memory server's knowledge graph (`memory.json`). The file is
 * read and checked before the store is opened: a bad line imports nothing.
 * @module
 */
import { z } from "zod";
import { MemoryKind } from "../../events/kinds/memory.ts";
import { ArgumentsError } from "../errors.ts";
import { parseJsonl } from "../ingest/jsonl.ts";
import { readServerGraph, ServerGraph, serverGraphEvents } from "../ingest/server_memory.ts";
import { AppendedButBehind } from "../service/store.ts";
import { isoDate } from "../service/dates.ts";
import { operation } from "./operation.ts";
import { plural } from "../recall/vector_lag.ts";

/** One memory record of an import file: an id of its own (imported once), the text, and where from. */
const ImportRecord = z.object({
  id: z.string().min(1),
  content: z.string().min(1),
  project: z.string().min(1).nullable().optional(),
  kind: MemoryKind.optional(),
  ts: isoDate.optional(),
  session: z.string().optional(),
  speaker: z.string().optional(),
  tags: z.array(z.string()).optional(),
});

/** Records written to the log at a time: what one failure can leave unimported. */
const BATCH = 1000;

/** What an import did: memories, or a graph's entities and relations; and where it stopped, if it did. */
export type ImportResult =
  | { memories: { imported: number; skipped: number; total: number }; stopped?: string }
  | { graph: { entities: number; relations: number } };

/** `import FILE.jsonl` and `import --from server-memory memory.json`. */
export const importFile = operation({
  command: "import",
  summary: "import memory records (JSONL), or the MCP memory server's graph (--from server-memory)",
  description: "Import memory records, or the MCP memory server's knowledge graph.",
  core: false,
  writes: true,
  input: {
    memories: z.array(ImportRecord).optional(),
    graph: ServerGraph.optional(),
  },
  output: { imported: z.number() },
  cli: {
    custom: {
      words: "FILE.jsonl | --from server-memory memory.json",
      options: { from: { type: "string" } },
      async build(values, words, read) {
        const [file] = words;
        if (!file) throw new ArgumentsError("give the file to import");
        if (words.length > 1) {
          throw new ArgumentsError(`one file at a time, got also "${words[1]}"`);
        }
        if (values.from !== undefined && values.from !== "server-memory") {
          throw new ArgumentsError(`--from takes server-memory, not "${values.from}"`);
        }
        const text = await read(file);
        return values.from === "server-memory" ? { graph: readServerGraph(text, file) } : {
          memories: onceEach(parseJsonl(text, file, ImportRecord, "nothing was imported"), file),
        };
      },
    },
  },
  async run(cairn, input, caller): Promise<ImportResult> {
    if (input.graph) {
      await cairn.store.append(serverGraphEvents(input.graph));
      return {
        graph: { entities: input.graph.entities.length, relations: input.graph.relations.length },
      };
    }
    const records = (input.memories ?? []).map((r) => ({
      content: r.content,
      external_id: r.id,
      project: r.project ?? null,
      kind: r.kind ?? "note",
      tags: [...(r.tags ?? []), ...(r.speaker ? [`speaker:${r.speaker}`] : [])],
      ...(r.session ? { source: r.session } : {}),
      ...(r.ts ? { occurred_at: r.ts } : {}),
    }));
    const memories = { imported: 0, skipped: 0, total: records.length };
    try {
      for (let i = 0; i < records.length; i += BATCH) {
        if (records.length > BATCH) {
          caller.progress?.(`memories ${i} of ${records.length}`, i / records.length);
        }
        const batch = await cairn.memories.importMany(records.slice(i, i + BATCH));
        memories.imported += batch.imported;
        memories.skipped += batch.skipped;
      }
    } catch (error) {
      // What reached the log is imported, whatever failed after it: say so, and how to go on.
      if (error instanceof AppendedButBehind) memories.imported += error.stored.length;
      if (memories.imported === 0) throw error;
      return { memories, stopped: (error as Error).message };
    }
    return { memories };
  },
  render(result: ImportResult) {
    if ("graph" in result) {
      const { entities, relations } = result.graph;
      return {
        text: `imported ${plural(entities, "entity", "entities")} and ${
          plural(relations, "relation")
        }`,
        data: { imported: entities + relations },
        json: result,
      };
    }
    const { imported, skipped, total } = result.memories;
    const again = skipped > 0 ? ` (${skipped} with an id already imported were skipped)` : "";
    const of = imported + skipped < total ? ` of ${total}` : "";
    return {
      text: `imported ${imported}${of} memories${again}`,
      data: { imported },
      json: result,
      ...(result.stopped
        ? {
          problem: `stopped: ${result.stopped}. Running the same import again adds only the ` +
            "records not imported yet",
        }
        : {}),
    };
  },
});

/**
 * `records`, refused when one id of one project is given two texts: the
 * second would be skipped as imported already, without a word.
 */
function onceEach<T extends { id: string; project?: string | null | undefined; content: string }>(
  records: T[],
  file: string,
): T[] {
  const texts = new Map<string, string>();
  for (const record of records) {
    const key = `${record.project ?? ""}\0${record.id}`;
    const seen = texts.get(key);
    if (seen !== undefined && seen !== record.content) {
      throw new ArgumentsError(
        `${file}: id ${record.id}${
          record.project ? ` of project ${record.project}` : ""
        } is given two different texts; give each record its own id. Nothing was imported`,
      );
    }
    texts.set(key, record.content);
  }
  return records;
}
