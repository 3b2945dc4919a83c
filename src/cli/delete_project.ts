import { parseCommandArgs } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { withCairn } from "./with_cairn.ts";

/** `cairn delete-project NAME`: takes a project's code out of the index. */
export const deleteProject: Command = {
  name: "delete-project",
  owner: "start",
  summary: "take a project's code out of the index (memories and sessions stay)",
  usage: "cairn delete-project NAME",
  async run(context) {
    const { positionals } = parseCommandArgs(context.args, {}, true);
    const [project] = positionals;
    if (!project) {
      throw new UsageError("give the project's name (`cairn index --status` lists them)");
    }
    await withCairn(context, (cairn) => cairn.code.deleteProject(project), {
      settle: true,
      warn: context.err,
    });
    context.out(`deleted the code index of ${project}`);
    return 0;
  },
};
