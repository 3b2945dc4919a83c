/**
 * `cairn status`: the `status` operation, run by the store's owner or on the
 * store opened here; while another command holds the store to itself
 * (replay, compact, verify --repair, a --no-owner reembed), what the log alone tells.
 * @module
 */
import { FileLog } from "../../events/file_log.ts";
import { holderCommand, StoreLockedError } from "../../events/lock.ts";
import { status, type StatusResult } from "../ops/status_ops.ts";
import { formatBytes } from "../ops/format_bytes.ts";
import { storeLayout } from "../service/paths.ts";
import { openCairn } from "../service/cairn.ts";
import { parseCommandArgs } from "./args.ts";
import type { Command, CommandContext } from "./command.ts";
import { reportRecovery } from "./with_cairn.ts";

/** `cairn status [PROJECT] [--json]`. */
export const statusCommand: Command = {
  name: status.command!,
  summary: status.summary,
  usage: `cairn status [PROJECT] [--json]\n\n${status.cli!.help}`,
  check: (args) => void statusArgs(args),
  needsStore: () => true,
  async run(context: CommandContext): Promise<number> {
    const { values, positionals } = statusArgs(context.args);
    const input = positionals[0] ? { project: positionals[0] } : {};
    const result = context.owner
      ? await status.run(context.owner, input, context)
      : await statusHere(context, input);
    if ("lockedBy" in result) {
      context.out(values.json ? JSON.stringify(result) : lockedText(result).join("\n"));
      return 0;
    }
    const rendered = status.render(result, input);
    context.out(values.json ? JSON.stringify(rendered.json) : rendered.text);
    return 0;
  },
};

function statusArgs(args: string[]) {
  return parseCommandArgs(args, { json: { type: "boolean" } }, true);
}

/** What another command holding the store lets a status see: the log alone. */
interface LockedStatus {
  store: string;
  logBytes: number;
  head: number;
  lockedBy: number | null;
  /** The holder's command line (`cairn --no-owner reembed`), when it wrote one. */
  lockedFor: string | null;
}

/** The status with the store opened here (`--no-owner`), or the log alone while something holds it. */
async function statusHere(
  context: CommandContext,
  input: { project?: string },
): Promise<StatusResult | LockedStatus> {
  const dir = context.storeDir;
  try {
    const cairn = await openCairn(dir, { lockWaitMs: 0 });
    try {
      reportRecovery(cairn.store.log.recovery, context.err);
      return await status.run(cairn, input, context);
    } finally {
      await cairn.close();
    }
  } catch (error) {
    if (!(error instanceof StoreLockedError)) throw error;
    const log = await FileLog.open(storeLayout(dir).log, { readOnly: true });
    try {
      return {
        store: dir,
        logBytes: await log.size(),
        head: log.head,
        lockedBy: error.holder?.pid ?? null,
        lockedFor: holderCommand(error.holder) ?? null,
      };
    } finally {
      await log.close();
    }
  }
}

function lockedText(report: LockedStatus): string[] {
  const who = report.lockedBy === null ? "another process" : `process ${report.lockedBy}`;
  const what = report.lockedFor
    ? ` (\`${report.lockedFor}\`) holds the store`
    : " holds the store for a command that needs it to itself " +
      "(replay, compact, verify --repair, a --no-owner reembed)";
  return [
    `store        ${report.store}`,
    `log          ${formatBytes(report.logBytes)}, ${report.head} events`,
    `owner        ${who}${what}; ask again when it is done`,
  ];
}
