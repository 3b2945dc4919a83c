import { fileHistory, formatHistory } from "../service/session_history.ts";
import { parseCommandArgs, parseLimit } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { withCairn } from "./with_cairn.ts";

/** `cairn history FILE`: the session turns that read or changed a file, newest first. */
export const history: Command = {
  name: "history",
  summary: "which agent sessions read or changed a file, and what was asked (newest first)",
  usage: "cairn history FILE [--project NAME] [--limit N] [--json]\n\n" +
    "  FILE  relative to its project's root (src/a.ts), absolute, or a bare name (a.ts)",
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.args, {
      project: { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean" },
    }, true);
    const [path] = positionals;
    if (!path) throw new UsageError("give the file whose history you want");
    const limit = parseLimit(values.limit);
    const found = await withCairn(
      context.storeDir,
      (cairn) =>
        fileHistory(cairn.graph.database, cairn.text, {
          path,
          limit,
          ...(values.project ? { project: values.project } : {}),
        }),
      { warn: context.err },
    );
    context.out(values.json ? JSON.stringify(found) : formatHistory(found));
    return 0;
  },
};
