import { parseCommandArgs } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { withCairn } from "./with_cairn.ts";

/** `cairn forget ID [--purge]`: forgets a memory; `--purge` removes its content from the log. */
export const forget: Command = {
  name: "forget",
  owner: "start",
  summary: "forget a memory (--purge also removes its content from the log)",
  usage: "cairn forget ID [--reason TEXT] [--purge]",
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.args, {
      reason: { type: "string" },
      purge: { type: "boolean" },
    }, true);
    const [id] = positionals;
    if (!id) throw new UsageError("give the memory's id");
    await withCairn(context, (cairn) =>
      cairn.memories.forget(id, {
        ...(values.reason ? { reason: values.reason } : {}),
        purge: values.purge ?? false,
      }), { settle: true, warn: context.err });
    context.out(values.purge ? `purged ${id}: its content is gone from the log` : `forgot ${id}`);
    return 0;
  },
};
