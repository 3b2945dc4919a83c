import { openCairn } from "../service/cairn.ts";
import { parseCommandArgs } from "./args.ts";
import type { Command, CommandContext } from "./command.ts";

/** `cairn replay`: rebuilds projections from the log. */
export const replay: Command = {
  name: "replay",
  summary: "rebuild projections from the event log",
  usage: "cairn replay [--projection NAME]",
  async run(context: CommandContext): Promise<number> {
    const { values } = parseCommandArgs(context.args, { projection: { type: "string" } });
    const { store } = await openCairn(context.storeDir);
    try {
      const started = performance.now();
      await store.runner.rebuild(values.projection);
      const seconds = (performance.now() - started) / 1000;
      const names = values.projection ?? store.runner.names.join(", ");
      context.out(`replayed ${store.log.head} events into ${names} in ${seconds.toFixed(2)} s`);
      return 0;
    } finally {
      await store.close();
    }
  },
};
