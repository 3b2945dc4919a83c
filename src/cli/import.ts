import { z } from "zod";
import { parseCommandArgs } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { withCairn } from "./with_cairn.ts";
import { describeIssues, UserError } from "../service/errors.ts";

const ImportLine = z.object({
  id: z.string().min(1),
  content: z.string().min(1),
  project: z.string().min(1).nullable().optional(),
  kind: z.string().optional(),
  ts: z.string().optional(),
  session: z.string().optional(),
  speaker: z.string().optional(),
  tags: z.array(z.string()).optional(),
});

const BATCH = 1000;

/** `cairn import FILE.jsonl`: memory records, one JSON object a line (the benchmark format). */
export const importCommand: Command = {
  name: "import",
  summary: "import memory records from a JSONL file",
  usage: "cairn import FILE.jsonl",
  async run(context) {
    const { positionals } = parseCommandArgs(context.args, {}, true);
    const [file] = positionals;
    if (!file) throw new UsageError("give the JSONL file to import");
    const lines = (await Deno.readTextFile(file)).split("\n");
    const records = lines.flatMap((line, index) => {
      if (!line.trim()) return [];
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        throw new UserError(`${file}:${index + 1}: not valid JSON; nothing was imported`);
      }
      const parsed = ImportLine.safeParse(json);
      if (!parsed.success) {
        throw new UserError(
          `${file}:${index + 1}: ${describeIssues(parsed.error)}; nothing was imported`,
        );
      }
      const r = parsed.data;
      return [{
        content: r.content,
        external_id: r.id,
        project: r.project ?? null,
        kind: (r.kind ?? "note") as never,
        tags: [...(r.tags ?? []), ...(r.speaker ? [`speaker:${r.speaker}`] : [])],
        ...(r.session ? { source: r.session } : {}),
        ...(r.ts ? { occurred_at: r.ts } : {}),
      }];
    });
    const started = performance.now();
    const imported = await withCairn(context.storeDir, async (cairn) => {
      let count = 0;
      for (let i = 0; i < records.length; i += BATCH) {
        count += await cairn.memories.importMany(records.slice(i, i + BATCH));
      }
      return count;
    }, { settle: true, warn: context.err });
    const seconds = (performance.now() - started) / 1000;
    context.out(`imported ${imported} memories in ${seconds.toFixed(1)} s`);
    return 0;
  },
};
