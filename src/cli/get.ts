import { UserError } from "../service/errors.ts";
import { parseCommandArgs, parseDateOption } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { memoryLine } from "../recall/format.ts";
import { withCairn } from "./with_cairn.ts";

/** `cairn get ID`: one memory. */
export const get: Command = {
  name: "get",
  owner: "start",
  summary: "show one memory by id",
  usage: "cairn get ID [--as-of DATE] [--json]",
  async run(context) {
    const { values, positionals } = parseCommandArgs(
      context.args,
      {
        json: { type: "boolean" },
        "as-of": { type: "string" },
      },
      true,
    );
    const [id] = positionals;
    if (!id) throw new UsageError("give the memory's id");
    const asOf = values["as-of"];
    const options = asOf === undefined ? {} : { as_of: parseDateOption(asOf, "--as-of") };
    const memory = await withCairn(context, (cairn) => cairn.memories.get(id, options));
    if (!memory) throw new UserError(`no memory with id ${id}`);
    context.out(values.json ? JSON.stringify(memory) : memoryLine(memory));
    return 0;
  },
};
