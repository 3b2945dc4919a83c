import { z } from "zod";
import { serverMemoryEvents } from "../ingest/server_memory.ts";
import { parseJsonl } from "../ingest/jsonl.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { withCairn } from "./with_cairn.ts";
import { readTextArgument } from "./read_file.ts";
import { AppendedButBehind } from "../service/store.ts";
import { MemoryKind } from "../../events/kinds/memory.ts";

const ImportLine = z.object({
  id: z.string().min(1),
  content: z.string().min(1),
  project: z.string().min(1).nullable().optional(),
  kind: MemoryKind.optional(),
  ts: z.string().optional(),
  session: z.string().optional(),
  speaker: z.string().optional(),
  tags: z.array(z.string()).optional(),
});

const BATCH = 1000;

/**
 * `cairn import FILE.jsonl`: memory records, one JSON object a line (the
 * benchmark format); `--from server-memory` reads the official MCP memory
 * server's `memory.json` instead.
 */
export const importCommand: Command = {
  name: "import",
  summary: "import memory records (JSONL), or the MCP memory server's graph (--from server-memory)",
  usage: "cairn import FILE.jsonl\n       cairn import --from server-memory memory.json",
  async run(context) {
    const { values, positionals } = parseCommandArgs(
      context.args,
      { from: { type: "string" } },
      true,
    );
    const [file] = positionals;
    if (!file) throw new UsageError("give the file to import");
    const text = await readTextArgument(context.cwd, file);
    const started = performance.now();
    const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
    if (values.from === "server-memory") {
      const events = serverMemoryEvents(text, file);
      await withCairn(context, (cairn) => cairn.store.append(events), {
        settle: true,
        warn: context.err,
      });
      const entities = events.filter((e) => e.type === "entity.created").length;
      context.out(
        `imported ${entities} entities and ${events.length - entities} relations in ${seconds()} s`,
      );
      return 0;
    }
    if (values.from !== undefined) {
      throw new UsageError(`--from takes server-memory, not "${values.from}"`);
    }
    const records = parseJsonl(text, file, ImportLine, "nothing was imported").map((r) => ({
      content: r.content,
      external_id: r.id,
      project: r.project ?? null,
      kind: r.kind ?? "note",
      tags: [...(r.tags ?? []), ...(r.speaker ? [`speaker:${r.speaker}`] : [])],
      ...(r.session ? { source: r.session } : {}),
      ...(r.ts ? { occurred_at: r.ts } : {}),
    }));
    const total = { imported: 0, skipped: 0 };
    const said = () => {
      const again = total.skipped > 0
        ? ` (${total.skipped} with an id already imported were skipped)`
        : "";
      const of = total.imported + total.skipped < records.length ? ` of ${records.length}` : "";
      return `imported ${total.imported}${of} memories in ${seconds()} s${again}`;
    };
    try {
      await withCairn(context, async (cairn) => {
        for (let i = 0; i < records.length; i += BATCH) {
          const batch = await cairn.memories.importMany(records.slice(i, i + BATCH));
          total.imported += batch.imported;
          total.skipped += batch.skipped;
        }
      }, { settle: true, warn: context.err });
    } catch (error) {
      // What reached the log is imported, whatever failed after it: say so, and how to go on.
      if (error instanceof AppendedButBehind) total.imported += error.stored.length;
      if (total.imported === 0) throw error;
      context.out(said());
      context.err(
        `cairn import: stopped: ${(error as Error).message}. ` +
          "Running the same import again adds only the records not imported yet",
      );
      return 1;
    }
    context.out(said());
    return 0;
  },
};
