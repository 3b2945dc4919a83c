import { parseCommandArgs } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { memoryLine } from "../recall/format.ts";
import { withCairn } from "./with_cairn.ts";

/** `cairn revise ID [TEXT]`: changes a memory; the old version stays in the log. */
export const revise: Command = {
  name: "revise",
  owner: "start",
  summary: "change a memory's text, kind, tags or validity (history is kept)",
  usage:
    "cairn revise ID [TEXT] [--kind KIND] [--tag TAG]... [--valid-from DATE] [--valid-to DATE]",
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.args, {
      kind: { type: "string" },
      tag: { type: "string", multiple: true },
      "valid-from": { type: "string" },
      "valid-to": { type: "string" },
    }, true);
    const [id, ...words] = positionals;
    if (!id) throw new UsageError("give the memory's id");
    const memory = await withCairn(context, (cairn) =>
      cairn.memories.revise({
        id,
        ...(words.length ? { content: words.join(" ") } : {}),
        ...(values.kind ? { kind: values.kind as never } : {}),
        ...(values.tag ? { tags: values.tag } : {}),
        ...(values["valid-from"] ? { valid_from: values["valid-from"] } : {}),
        ...(values["valid-to"] ? { valid_to: values["valid-to"] } : {}),
      }), { settle: true, warn: context.err });
    context.out(memoryLine(memory));
    return 0;
  },
};
