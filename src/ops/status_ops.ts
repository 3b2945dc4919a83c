/**
 * `status`: is it ready? What the store holds, what still waits for a
 * vector and how long that should take, the model, the projections, and the
 * owner serving the store.
 * @module
 */
import { z } from "zod";
import {
  etaSeconds,
  formatSeconds,
  lagText,
  lagWithin,
  plural,
  waitingCount,
} from "../recall/vector_lag.ts";
import type { Cairn, ServedBy, TeamSyncState } from "../service/cairn.ts";
import type { ProjectStatus } from "../service/code_index.ts";
import { statusLines } from "../service/index_status.ts";
import { type StoreStatus, storeStatus } from "../service/store_status.ts";
import { formatBytes } from "./format_bytes.ts";
import { operation } from "./operation.ts";
import { timeLeft, vectorsSoFar } from "./reembed_ops.ts";

/** A store's status and who serves it: its owner, or nobody (the store was opened by the command). */
export interface StatusReport extends StoreStatus {
  owner:
    | (Omit<ServedBy, "team"> & { uptimeSeconds: number; team?: TeamSyncState })
    | null;
}

/**
 * The owner serving `cairn` (this process, once `cairn serve` listens), up
 * for how long, and how its sync with the team goes; else null.
 */
export function ownerOf(cairn: Cairn): StatusReport["owner"] {
  if (!cairn.servedBy) return null;
  const { team, ...served } = cairn.servedBy;
  const synced = team?.();
  return {
    ...served,
    uptimeSeconds: (Date.now() - Date.parse(served.startedAt)) / 1000,
    ...(synced ? { team: synced } : {}),
  };
}

/** What `status` answers: the whole store's, or one project's code index (`status PROJECT`). */
export type StatusResult = { store: StatusReport } | { project: ProjectStatus };

/** `status`: is it ready? */
export const status = operation({
  command: "status",
  tool: "store_status",
  summary: "is it ready? what the store holds, vectors still to compute, the owner and model",
  description: "Is cairn ready? What the store holds, vectors still to compute (search answers " +
    "by words meanwhile), the model and the owner.",
  core: false,
  writes: false,
  input: {
    project: z.string().min(1).max(200).optional().describe("one project's code index instead"),
  },
  output: { store: z.looseObject({}).optional(), project: z.looseObject({}).optional() },
  cli: {
    positionals: [{ key: "project", name: "PROJECT" }],
    help: "  PROJECT  that project's code index: files, chunks, last run and what it skipped",
  },
  async run(cairn, { project }): Promise<StatusResult> {
    if (project) return { project: await cairn.code.status(project).then((all) => all[0]!) };
    return { store: { ...await storeStatus(cairn), owner: ownerOf(cairn) } };
  },
  render(result: StatusResult) {
    const text = "project" in result ? statusLines(result.project) : statusText(result.store);
    const data = "project" in result ? result.project : result.store;
    return { text: text.join("\n"), data: { ...result }, json: data };
  },
});

function statusText(report: StatusReport): string[] {
  const { vectors, code, sessions, model } = report;
  const waiting = waitingCount(vectors.lag);
  const codeWaiting = waitingCount(lagWithin(vectors.lag, ["code"], null));
  const wordsOnly = code.chunks - vectors.held.code - codeWaiting;
  const lines = [
    `store        ${report.store}`,
    `log          ${formatBytes(report.logBytes)}, up to event ${report.head}`,
    `memories     ${report.memories}`,
    `code         ${plural(code.projects, "project")}, ${plural(code.files, "file")}, ${
      plural(code.chunks, "chunk")
    }${
      wordsOnly > 0
        ? ` (${wordsOnly} of them searched by words only: tables past their first chunk)`
        : ""
    }`,
    `sessions     ${plural(sessions.sessions, "session")}, ${plural(sessions.turns, "turn")}`,
    `graph        ${plural(report.graph.entities, "entity", "entities")}, ${
      plural(report.graph.relations, "relation")
    }`,
    `vectors      ${Object.values(vectors.held).reduce((sum, n) => sum + n, 0)} computed` +
    (waiting === 0 ? ", none waiting: ready" : `; waiting: ${lagText(vectors.lag)}`),
    model.state === "unusable"
      ? `model        none usable: ${model.reason}`
      : `model        ${model.id}: ${model.state}`,
    report.owner
      ? `owner        pid ${report.owner.pid}, port ${report.owner.port}, up ${
        formatSeconds(report.owner.uptimeSeconds)
      }`
      : "owner        none: this status opened the store itself (--no-owner)",
    ...(report.owner?.team ? [`team         ${teamLine(report.owner.team)}`] : []),
  ];
  if (report.reembed) {
    const { model, events, of } = report.reembed;
    lines.push(
      `reembed      to ${model}: ${vectorsSoFar(report.reembed)} so far${
        timeLeft(report.reembed)
      }, event ${events} of ${of}; ` +
        "search answers from the current vectors until they are in",
    );
  }
  for (const p of report.projections) {
    lines.push(`projection   ${p.name} v${p.version}: event ${p.checkpoint}, ${p.lag} behind`);
  }
  lines.push(...advice(report, waiting));
  if (report.model.newer && !report.reembed) {
    lines.push(
      `> cairn's default model is now ${report.model.newer.id}: \`${report.model.newer.command}\` ` +
        "moves this store to it, and search answers from the current vectors until the new ones are in",
    );
  }
  return lines;
}

/** What to do about vectors still waiting, if anything. */
function advice(report: StatusReport, waiting: number): string[] {
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
    ? " (how long it takes is known once the first batches are in)"
    : `, done in about ${formatSeconds(eta)}`;
  return [
    `> the owner computes them in the background${when}; search answers meanwhile, by words ` +
    "and the graph for those",
  ];
}

/**
 * `last pass 12:03:04, last moved 12:01:10 (published 2, took in 1); 0 to
 * publish`, or what stopped the last pass.
 */
function teamLine(team: TeamSyncState): string {
  const time = (iso: string) => iso.slice(11, 19);
  const moved = team.lastMoved
    ? `last moved ${
      time(team.lastMoved.at)
    } (published ${team.lastMoved.published}, took in ${team.lastMoved.applied})`
    : "nothing moved yet";
  const how = team.problem
    ? `last pass failed: ${team.problem}`
    : `last pass ${time(team.lastPass)}`;
  return `${how}; ${moved}; ${plural(team.pending, "event")} to publish`;
}
