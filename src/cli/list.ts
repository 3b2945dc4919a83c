import { parseCommandArgs, parseDateOption } from "./args.ts";
import type { Command } from "./command.ts";
import { memoryLine } from "../recall/format.ts";
import { withCairn } from "./with_cairn.ts";

/** `cairn list`: memories, newest first, with filters. */
export const list: Command = {
  name: "list",
  owner: "start",
  summary: "list memories, newest first (filters: project, kind, tag)",
  usage:
    "cairn list [--project NAME] [--kind KIND] [--tag TAG] [--forgotten] [--as-of DATE] [--valid-at DATE] [--limit N] [--offset N] [--json]",
  async run(context) {
    const { values } = parseCommandArgs(context.args, {
      project: { type: "string" },
      kind: { type: "string" },
      tag: { type: "string" },
      forgotten: { type: "boolean" },
      "as-of": { type: "string" },
      "valid-at": { type: "string" },
      limit: { type: "string" },
      offset: { type: "string" },
      json: { type: "boolean" },
    });
    const memories = await withCairn(context, (cairn) =>
      cairn.memories.list({
        ...(values.project ? { project: values.project } : {}),
        ...(values.kind ? { kind: values.kind as never } : {}),
        ...(values.tag ? { tag: values.tag } : {}),
        include_forgotten: values.forgotten ?? false,
        ...(values["as-of"] ? { as_of: parseDateOption(values["as-of"], "--as-of") } : {}),
        ...(values["valid-at"]
          ? { valid_at: parseDateOption(values["valid-at"], "--valid-at") }
          : {}),
        ...(values.limit ? { limit: Number(values.limit) } : {}),
        ...(values.offset ? { offset: Number(values.offset) } : {}),
      }));
    if (values.json) context.out(JSON.stringify(memories));
    else if (memories.length === 0) context.out("no memories match");
    else for (const memory of memories) context.out(memoryLine(memory));
    return 0;
  },
};
