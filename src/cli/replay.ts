import { openCairn, PROJECTION_NAMES } from "../service/cairn.ts";
import { parseCommandArgs } from "./args.ts";
import { askOwnerToStepAside } from "./step_aside.ts";
import { type Command, type CommandContext, UsageError } from "./command.ts";

/**
 * `cairn replay`: rebuilds projections from the log; a rebuilt lexical index
 * also saves its search indexes' image, as `cairn index` does, so that the next
 * process to search loads them instead of building them.
 */
export const replay: Command = {
  name: "replay",
  summary: "rebuild projections from the event log",
  usage: "cairn replay [--projection NAME]\n\n" +
    "  --projection  rebuild one projection only, named as `cairn status` lists them",
  needsStore: () => true,
  // Before the owner is asked to step aside: a typo stops nothing.
  check(args) {
    const { projection } = parseCommandArgs(args, { projection: { type: "string" } }).values;
    if (projection !== undefined && !(PROJECTION_NAMES as readonly string[]).includes(projection)) {
      throw new UsageError(
        `no projection named "${projection}"; known: ${PROJECTION_NAMES.join(", ")}`,
      );
    }
  },
  async run(context: CommandContext): Promise<number> {
    const { values } = parseCommandArgs(context.args, { projection: { type: "string" } });
    await askOwnerToStepAside(context);
    const cairn = await openCairn(context.storeDir);
    const { store } = cairn;
    try {
      const started = performance.now();
      await store.runner.rebuild(values.projection);
      if (values.projection === undefined || values.projection === cairn.text.name) {
        await cairn.text.saveIndexes();
      }
      const seconds = (performance.now() - started) / 1000;
      const names = values.projection ?? store.runner.names.join(", ");
      context.out(
        `replayed the log (up to event ${store.log.head}) into ${names} in ${seconds.toFixed(2)} s`,
      );
      return 0;
    } finally {
      await store.close();
    }
  },
};
