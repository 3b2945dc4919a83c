import { formatHistory, historyTarget, sessionHistory } from "../service/session_history.ts";
import { parseCommandArgs, parseLimit } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { withCairn } from "./with_cairn.ts";

/** `cairn history FILE|TOPIC`: the session turns that touched a file or a topic, newest first. */
export const history: Command = {
  name: "history",
  owner: "start",
  summary: "which agent sessions touched a file or a topic, and what was asked (newest first)",
  usage: "cairn history FILE|TOPIC [--project NAME] [--limit N] [--json]\n\n" +
    "  FILE   relative to its project's root (src/a.ts), absolute, or a bare name (a.ts)\n" +
    '  TOPIC  anything else, in words: "the flaky upload test"',
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.args, {
      project: { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean" },
    }, true);
    const [target] = positionals;
    if (!target?.trim()) throw new UsageError("give the file or the topic whose history you want");
    const limit = parseLimit(values.limit);
    const found = await withCairn(
      context,
      (cairn) =>
        sessionHistory({ graph: cairn.graph.database, text: cairn.text, recall: cairn.recall }, {
          ...historyTarget(target),
          limit,
          ...(values.project ? { project: values.project } : {}),
        }),
      { warn: context.err },
    );
    context.out(values.json ? JSON.stringify(found) : formatHistory(found));
    return 0;
  },
};
