/**
 * `cairn reembed`: the `reembed` operation, in the store's owner while one
 * runs (searches go on with the old vectors), else on the store no process
 * has open: its config.json may already name a model its vectors were not
 * built with, which opening the store would refuse.
 * @module
 */
import { reembed, reembedOptions, withModelDir } from "../ops/reembed_ops.ts";
import { reembed as reembedClosedStore } from "../service/reembed.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, UsageError } from "./command.ts";

/** `cairn reembed [--model-dir DIR]`. */
export const reembedCommand: Command = {
  name: reembed.command!,
  summary: reembed.summary,
  usage: `cairn reembed [--model-dir DIR]\n\n${reembed.cli!.help}`,
  needsStore: () => true,
  async run(context) {
    const { values } = parseCommandArgs(context.args, { "model-dir": { type: "string" } });
    const dir = values["model-dir"];
    if (dir === "") throw new UsageError("--model-dir needs a model folder");
    const input = dir === undefined ? {} : { model_dir: dir };
    const result = context.owner
      ? await reembed.run(context.owner, input, context)
      : await reembedHere(context.storeDir, input, context);
    context.out(reembed.render(result, input).text);
    return 0;
  },
};

async function reembedHere(
  storeDir: string,
  input: { model_dir?: string },
  caller: Parameters<typeof reembedOptions>[1],
) {
  const options = await reembedOptions(input, caller);
  return withModelDir(await reembedClosedStore(storeDir, options), options);
}
