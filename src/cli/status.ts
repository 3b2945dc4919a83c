import { FileLog } from "../../events/file_log.ts";
import { readOwner, StoreLockedError } from "../../events/lock.ts";
import { readOwnerRecord } from "../mcp/owner_file.ts";
import { etaSeconds, formatSeconds, lagText, plural, waitingCount } from "../recall/vector_lag.ts";
import { statusLines } from "../service/index_status.ts";
import { storeLayout } from "../service/paths.ts";
import { type StoreStatus, storeStatus } from "../service/store_status.ts";
import { openCairn } from "../service/cairn.ts";
import { parseCommandArgs } from "./args.ts";
import type { Command, CommandContext } from "./command.ts";
import { formatBytes } from "./format.ts";
import { reportRecovery, withCairn } from "./with_cairn.ts";

/** Who answered a status: the store's owner, or this process with the store opened here. */
type Answerer =
  | { owner: { pid: number; port?: number; startedAt?: string; uptimeSeconds?: number } }
  | { owner: null };

/** `cairn status`: is it ready? What the store holds, what still waits for vectors, and who owns it. */
export const status: Command = {
  name: "status",
  summary: "is it ready? what the store holds, vectors still to compute, the owner and model",
  usage: "cairn status [PROJECT] [--json]\n\n" +
    "  PROJECT  that project's code index: files, chunks, last run and what it skipped",
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
    const report = context.owner
      ? { ...await storeStatus(context.owner), ...await ownerOf(context.storeDir) }
      : await statusHere(context.storeDir, context.err);
    if (values.json) context.out(JSON.stringify(report));
    else if ("lockedBy" in report) { for (const line of lockedText(report)) context.out(line); }
    else for (const line of statusText(report)) context.out(line);
    return 0;
  },
};

/** This process is the owner: its pid, port and uptime. */
async function ownerOf(storeDir: string): Promise<Answerer> {
  const record = await readOwnerRecord(storeDir);
  const started = record?.pid === Deno.pid ? record : undefined;
  return {
    owner: {
      pid: Deno.pid,
      ...(started
        ? {
          port: started.port,
          startedAt: started.started_at,
          uptimeSeconds: (Date.now() - Date.parse(started.started_at)) / 1000,
        }
        : {}),
    },
  };
}

/** What another command holding the store lets a status see: the log alone. */
interface LockedStatus {
  store: string;
  logBytes: number;
  head: number;
  lockedBy: number | null;
}

/** The status with the store opened here (`--no-owner`), or the log alone while something holds it. */
async function statusHere(
  dir: string,
  warn: (line: string) => void,
): Promise<(StoreStatus & Answerer) | LockedStatus> {
  try {
    const cairn = await openCairn(dir, { lockWaitMs: 0 });
    try {
      reportRecovery(cairn.store.log.recovery, warn);
      return { ...await storeStatus(cairn), owner: null };
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
        lockedBy: await readOwner(dir) ?? null,
      };
    } finally {
      await log.close();
    }
  }
}

function statusText(report: StoreStatus & Answerer): string[] {
  const { vectors, code, sessions, model } = report;
  const waiting = waitingCount(vectors.lag);
  const lines = [
    `store        ${report.store}`,
    `log          ${formatBytes(report.logBytes)}, ${plural(report.head, "event")}`,
    `memories     ${report.memories}`,
    `code         ${plural(code.projects, "project")}, ${plural(code.files, "file")}, ${
      plural(code.chunks, "chunk")
    }`,
    `sessions     ${plural(sessions.sessions, "session")}, ${plural(sessions.turns, "turn")}`,
    `vectors      ${vectors.held.memory + vectors.held.code + vectors.held.turn} computed` +
    (waiting === 0 ? ", none waiting: ready" : `; waiting: ${lagText(vectors.lag)}`),
    model.state === "unusable"
      ? `model        none usable: ${model.reason}`
      : `model        ${model.id}: ${model.state}`,
    report.owner
      ? `owner        pid ${report.owner.pid}` +
        (report.owner.port ? `, port ${report.owner.port}` : "") +
        (report.owner.uptimeSeconds !== undefined
          ? `, up ${formatSeconds(report.owner.uptimeSeconds)}`
          : "")
      : "owner        none: this status opened the store itself (--no-owner)",
  ];
  for (const p of report.projections) {
    lines.push(`projection   ${p.name} v${p.version}: event ${p.checkpoint}, ${p.lag} behind`);
  }
  lines.push(...advice(report, waiting));
  return lines;
}

/** What to do about vectors still waiting, if anything. */
function advice(report: StoreStatus & Answerer, waiting: number): string[] {
  if (waiting === 0) return [];
  if (report.model.state === "unusable") {
    return [
      "> vectors wait for a model that cannot be used: fix it (see the model line), then any " +
      "command picks them up; until then search answers by words and the graph",
    ];
  }
  if (!report.owner) {
    return [
      "> no owner computes the waiting vectors: any command without --no-owner starts one, " +
      "or `cairn --no-owner index PATH` computes them before it returns",
    ];
  }
  const eta = etaSeconds(report.vectors.lag);
  const when = eta === undefined
    ? " (how long, once the first batches are in)"
    : `, done in about ${formatSeconds(eta)}`;
  return [
    `> the owner computes them in the background${when}; search answers meanwhile, by words ` +
    "and the graph for those",
  ];
}

function lockedText(report: LockedStatus): string[] {
  return [
    `store        ${report.store}`,
    `log          ${formatBytes(report.logBytes)}, ${report.head} events`,
    `owner        ${
      report.lockedBy ? `process ${report.lockedBy}` : "another process"
    } holds the store for a command that needs it to itself (replay, compact, verify --repair); ` +
    "ask again when it is done",
  ];
}
