/**
 * `ingest`: reads agents' session transcripts (Claude Code, Codex) into
 * turns, incrementally: a transcript read before gives only what is new.
 * @module
 */
import { join, resolve } from "node:path";
import { z } from "zod";
import { transcriptsAt } from "../ingest/transcripts/files.ts";
import type { IngestReport } from "../service/sessions.ts";
import { plural } from "../recall/vector_lag.ts";
import { operation } from "./operation.ts";

/** Whose transcripts: the agent that wrote them. */
export const Agent = z.enum(["claude", "codex"]);

/** Whose transcripts: the agent that wrote them. */
export type Agent = z.infer<typeof Agent>;

/** The agents' names, as messages say them. */
export const WHOSE: Record<Agent, string> = { claude: "Claude Code", codex: "Codex" };

/** What an ingest read, transcript by transcript, and how long it took. */
export interface IngestResult {
  transcripts: IngestReport[];
  seconds: number;
}

/**
 * `ingest`: reads transcripts (files, or every transcript under a folder)
 * into turns. A command, not a tool: agents' own sessions come in through
 * hooks, and the tool list every agent reads stays short.
 */
export const ingest = operation({
  command: "ingest",
  summary: "read agent session transcripts (Claude Code, Codex)",
  description:
    "Read agent session transcripts (Claude Code or Codex JSONL) into past sessions recall " +
    "searches; again later, only what is new is read.",
  core: false,
  writes: true,
  input: {
    agent: Agent.describe("whose transcripts"),
    paths: z.array(z.string().min(1).max(4096)).max(1000).optional().describe(
      "absolute transcript files or folders of them (default: the agent's own folder)",
    ),
    final: z.boolean().optional().describe("the session has ended: its last turn is final"),
  },
  output: { transcripts: z.number(), turns: z.number(), added: z.number() },
  async run(cairn, input, caller): Promise<IngestResult> {
    const targets = input.paths?.map((path) => resolve(caller.cwd, path)) ??
      [transcriptFolder(input.agent)];
    const files = targets.length > 0 ? await transcriptsAt(targets, WHOSE[input.agent]) : [];
    const started = performance.now();
    const transcripts: IngestReport[] = [];
    let turns = 0;
    for (const [i, path] of files.entries()) {
      if (files.length > 1) {
        caller.progress?.(
          `transcripts ${i}/${files.length}, ${turns} new turns`,
          i / files.length,
        );
      }
      transcripts.push(
        await cairn.sessions.ingest({ path, agent: input.agent, final: input.final === true }),
      );
      turns += transcripts.at(-1)!.added;
    }
    return { transcripts, seconds: (performance.now() - started) / 1000 };
  },
  render: (result: IngestResult) => ({
    text: ingestSummary(result).join("\n"),
    data: {
      transcripts: result.transcripts.length,
      turns: sum(result.transcripts, "turns"),
      added: sum(result.transcripts, "added"),
    },
    json: result,
  }),
});

/** The folder an agent keeps its transcripts in (the default of `ingest`). */
export function transcriptFolder(agent: Agent): string {
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? ".";
  if (agent === "claude") {
    return join(Deno.env.get("CLAUDE_CONFIG_DIR") ?? join(home, ".claude"), "projects");
  }
  return join(Deno.env.get("CODEX_HOME") ?? join(home, ".codex"), "sessions");
}

type Counted = "turns" | "added" | "replaced" | "unchanged" | "optedOut" | "removed";

function sum(reports: readonly IngestReport[], key: Counted): number {
  return reports.reduce((total, report) => total + report[key], 0);
}

/** The human summary of an ingest: what was read, skipped, redacted and left for later. */
export function ingestSummary({ transcripts: reports, seconds }: IngestResult): string[] {
  const turns = sum(reports, "turns");
  const rate = seconds > 0 ? ` (${Math.round(turns / seconds)} turns/s)` : "";
  const lines = [
    `ingested ${reports.length} transcript${reports.length === 1 ? "" : "s"}: ${
      plural(turns, "turn")
    } read, ` +
    `${sum(reports, "added")} new, ${sum(reports, "replaced")} replaced, ${
      sum(reports, "unchanged")
    } unchanged` +
    (sum(reports, "removed") ? `, ${sum(reports, "removed")} withdrawn` : "") +
    ` in ${seconds.toFixed(2)} s${rate}`,
  ];
  const unknown = new Map<string, number>();
  for (const report of reports) {
    for (const [type, count] of Object.entries(report.unknown)) {
      unknown.set(type, (unknown.get(type) ?? 0) + count);
    }
  }
  if (unknown.size > 0) {
    lines.push(
      `skipped records of unknown types: ${[...unknown].map(([t, n]) => `${t} (${n})`).join(", ")}`,
    );
  }
  const invalid = reports.reduce((total, report) => total + report.invalidLines, 0);
  if (invalid > 0) {
    lines.push(`skipped ${plural(invalid, "line")} that ${invalid === 1 ? "is" : "are"} not JSON`);
  }
  const oversized = reports.reduce((total, report) => total + report.oversizedLines, 0);
  if (oversized > 0) lines.push(`skipped ${oversized} lines over 16 MiB (a tool's runaway output)`);
  const partial = reports.filter((report) => report.partialLine).length;
  if (partial > 0) {
    lines.push(`${partial} transcript(s) end in a half-written line, left for the next ingest`);
  }
  const redactions = reports.reduce((total, report) => total + report.redactions, 0);
  if (redactions > 0) lines.push(`redacted ${redactions} secrets or <private> spans`);
  if (sum(reports, "optedOut") > 0) {
    lines.push(
      `${sum(reports, "optedOut")} turns not stored: their project has a .cairn-no-sessions file`,
    );
  }
  return lines;
}
