import { compactStore } from "../service/compact.ts";
import { openCairn } from "../service/cairn.ts";
import { parseCommandArgs } from "./args.ts";
import { askOwnerToStepAside } from "./step_aside.ts";
import type { Command, CommandContext } from "./command.ts";
import { formatBytes } from "../ops/format_bytes.ts";

/** `cairn compact`: rewrites the log keeping the latest state of everything. */
export const compact: Command = {
  name: "compact",
  summary: "rewrite the log without superseded events (atomic)",
  usage: "cairn compact",
  needsStore: () => true,
  async run(context: CommandContext): Promise<number> {
    parseCommandArgs(context.args, {});
    await askOwnerToStepAside(context);
    const { store } = await openCairn(context.storeDir);
    try {
      const report = await compactStore(
        store,
        (removed, total) =>
          context.progress(`removing unreferenced blobs: ${removed} of ${total}`, removed / total),
      );
      context.out(
        `kept ${report.kept} events, dropped ${report.dropped}; ` +
          `log ${formatBytes(report.bytesBefore)} -> ${formatBytes(report.bytesAfter)}; ` +
          `removed ${report.blobsRemoved} unreferenced blobs`,
      );
      return 0;
    } finally {
      await store.close();
    }
  },
};
