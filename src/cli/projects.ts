import { formatProjects, listProjects } from "../service/project_list.ts";
import { parseCommandArgs } from "./args.ts";
import type { Command } from "./command.ts";
import { withCairn } from "./with_cairn.ts";

/** `cairn projects`: one line per indexed project, as the `list_projects` tool answers. */
export const projects: Command = {
  name: "projects",
  owner: "start",
  summary: "list the indexed projects (up to 100): files, chunks, last indexed",
  usage: "cairn projects [--json]\n\n" +
    "  `cairn index --status` shows each project's last run and what it skipped",
  async run(context) {
    const { values } = parseCommandArgs(context.args, { json: { type: "boolean" } });
    const list = await withCairn(context, (cairn) => listProjects(cairn.code), {
      warn: context.err,
    });
    context.out(values.json ? JSON.stringify(list) : formatProjects(list));
    return 0;
  },
};
