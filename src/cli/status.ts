import { FileLog } from "../../events/file_log.ts";
import { readOwner, StoreLockedError } from "../../events/lock.ts";
import { storeLayout } from "../service/paths.ts";
import { openCairn } from "../service/cairn.ts";
import { statusLines } from "../service/index_status.ts";
import { parseCommandArgs } from "./args.ts";
import type { Command, CommandContext } from "./command.ts";
import { formatBytes } from "./format.ts";
import { reportRecovery, withCairn } from "./with_cairn.ts";
import { UnavailableEmbedder } from "../embed/unavailable_embedder.ts";

/** `cairn status`: where the store is, how big the log is, how far each projection has got. */
export const status: Command = {
  name: "status",
  summary: "show the store, its log, projections and model; with PROJECT, its code index",
  usage: "cairn status [PROJECT] [--json]",
  async run(context: CommandContext): Promise<number> {
    const { values, positionals } = parseCommandArgs(
      context.args,
      { json: { type: "boolean" } },
      true,
    );
    const [project] = positionals;
    if (project) {
      const [code] = await withCairn(context, (cairn) => cairn.code.status(project), {
        warn: context.err,
      });
      if (values.json) context.out(JSON.stringify(code));
      else for (const line of statusLines(code!)) context.out(line);
      return 0;
    }
    const report = await collect(context.storeDir, context.err);
    if (values.json) {
      context.out(JSON.stringify(report));
      return 0;
    }
    context.out(`store        ${report.store}`);
    context.out(`log          ${formatBytes(report.logBytes)}, head ${report.head}`);
    if (report.owner) context.out(`owner        process ${report.owner} (projections are its own)`);
    for (const p of report.projections) {
      context.out(`projection   ${p.name} v${p.version}: checkpoint ${p.checkpoint}, lag ${p.lag}`);
    }
    context.out(`model        ${report.model}`);
    return 0;
  },
};

interface StatusReport {
  store: string;
  logBytes: number;
  head: number;
  owner?: number;
  projections: Array<{ name: string; version: number; checkpoint: number; lag: number }>;
  model: string;
}

async function collect(dir: string, warn: (line: string) => void): Promise<StatusReport> {
  try {
    // Another process holding the store answers for its projections: no wait for it.
    const { store, vectors, embedder } = await openCairn(dir, { lockWaitMs: 0 });
    try {
      reportRecovery(store.log.recovery, warn);
      return {
        store: dir,
        logBytes: await store.log.size(),
        head: store.log.head,
        projections: store.runner.status(),
        model: embedder instanceof UnavailableEmbedder
          ? `none usable: ${embedder.reason.message}`
          : vectors.model,
      };
    } finally {
      await store.close();
    }
  } catch (error) {
    if (!(error instanceof StoreLockedError)) throw error;
    const log = await FileLog.open(storeLayout(dir).log, { readOnly: true });
    const owner = await readOwner(dir);
    const report = {
      store: dir,
      logBytes: await log.size(),
      head: log.head,
      ...(owner ? { owner } : {}),
      projections: [],
      model: "the owner's",
    };
    await log.close();
    return report;
  }
}
