import { reembed } from "../service/reembed.ts";
import { parseCommandArgs } from "./args.ts";
import type { Command } from "./command.ts";

/** `cairn reembed`: rebuilds the vectors with the model config.json names now. */
export const reembedCommand: Command = {
  name: "reembed",
  summary: "rebuild every vector with the embedding model config.json names (resumable)",
  usage: "cairn reembed",
  async run(context) {
    parseCommandArgs(context.args, {});
    const report = await reembed(
      context.storeDir,
      (done, total) => context.err(`embedding: event ${done} of ${total}`),
    );
    const counts = Object.entries(report.vectors).map(([source, n]) => `${n} ${source}`).join(", ");
    context.out(
      `vectors rebuilt with ${report.model} in ${report.seconds.toFixed(1)} s: ${counts}`,
    );
    return 0;
  },
};
