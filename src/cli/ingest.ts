import { basename, join, resolve } from "node:path";
import { z } from "zod";
import { describeIssues, UserError } from "../service/errors.ts";
import type { IngestReport } from "../service/sessions.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, type CommandContext, UsageError } from "./command.ts";
import { withCairn } from "./with_cairn.ts";
import { watchBatches } from "../ingest/watch_batches.ts";

type Agent = "claude" | "codex";

/** What a Claude Code hook receives on standard input (the fields cairn reads). */
const HookInput = z.object({
  transcript_path: z.string().min(1),
  hook_event_name: z.string().optional(),
});

/**
 * `cairn ingest claude|codex [PATH]`: reads agent session transcripts (a file,
 * or every transcript under a directory) into turns, incrementally.
 */
export const ingest: Command = {
  name: "ingest",
  relayed: true,
  summary: "read agent session transcripts (Claude Code, Codex)",
  usage: "cairn ingest claude|codex [PATH] [--hook] [--final] [--watch] [--no-wait] [--json]\n\n" +
    "  PATH       a transcript file or a directory of them (default: ~/.claude/projects,\n" +
    "             ~/.codex/sessions)\n" +
    "  --hook     read PATH from a Claude Code hook's JSON on standard input\n" +
    "             (SessionEnd makes the last turn final)\n" +
    "  --final    the session has ended: its last turn is final, not provisional\n" +
    "  --watch    keep running and ingest transcripts as they change\n" +
    "  --no-wait  return before the turns' embeddings are computed (the next open does it)",
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.args, {
      hook: { type: "boolean" },
      final: { type: "boolean" },
      watch: { type: "boolean" },
      "no-wait": { type: "boolean" },
      json: { type: "boolean" },
    }, true);
    const [agent, given, ...extra] = positionals;
    if (agent !== "claude" && agent !== "codex") {
      throw new UsageError('say whose transcripts to read: "claude" or "codex"');
    }
    if (extra.length > 0) throw new UsageError(`one PATH at most, got also "${extra[0]}"`);
    let target = given;
    let final = values.final === true;
    if (values.hook) {
      if (given) throw new UsageError("--hook reads the path from standard input; give no PATH");
      const hook = parseHookInput(context.stdin ?? await new Response(Deno.stdin.readable).text());
      target = hook.transcript_path;
      final ||= hook.hook_event_name === "SessionEnd";
    }
    target = target === undefined ? defaultDir(agent) : resolve(context.cwd, target);
    const settle = values["no-wait"] !== true;
    if (values.watch) return await watch(context, target, agent, settle);
    const files = await transcriptFiles(target, agent);
    const started = performance.now();
    const reports = await ingestFiles(context, files, agent, final, settle);
    const seconds = (performance.now() - started) / 1000;
    if (values.json) context.out(JSON.stringify({ seconds, transcripts: reports }));
    else for (const line of summarise(reports, seconds)) context.out(line);
    return 0;
  },
};

function ingestFiles(
  context: CommandContext,
  files: readonly string[],
  agent: Agent,
  final: boolean,
  settle: boolean,
): Promise<IngestReport[]> {
  return withCairn(context, async (cairn) => {
    const reports: IngestReport[] = [];
    for (const path of files) reports.push(await cairn.sessions.ingest({ path, agent, final }));
    return reports;
  }, { settle, warn: context.err });
}

function parseHookInput(text: string): z.infer<typeof HookInput> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UserError("--hook expects the hook's JSON on standard input; it is not JSON");
  }
  const parsed = HookInput.safeParse(json);
  if (!parsed.success) throw new UserError(`--hook input: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

function defaultDir(agent: Agent): string {
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? ".";
  if (agent === "claude") {
    return join(Deno.env.get("CLAUDE_CONFIG_DIR") ?? join(home, ".claude"), "projects");
  }
  return join(Deno.env.get("CODEX_HOME") ?? join(home, ".codex"), "sessions");
}

/** The transcripts at `target`: the file itself, or every `.jsonl` below the directory, sorted. */
async function transcriptFiles(target: string, agent: Agent): Promise<string[]> {
  const stat = await Deno.stat(target).catch(() => undefined);
  if (!stat) {
    const whose = agent === "claude" ? "Claude Code" : "Codex";
    throw new UserError(
      `no ${whose} transcripts at ${target}; give a transcript file or directory`,
    );
  }
  if (stat.isFile) return [target];
  const files: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile && isTranscript(path)) files.push(path);
    }
  };
  await walk(target);
  return files.sort();
}

/** Sub-agents' own files hold no user prompt, so they would make no turn: skipped. */
function isTranscript(path: string): boolean {
  return path.endsWith(".jsonl") && !basename(path).startsWith("agent-");
}

/** The human summary of an ingest. */
export function summarise(reports: readonly IngestReport[], seconds: number): string[] {
  const sum = (key: "turns" | "added" | "replaced" | "unchanged" | "optedOut" | "removed") =>
    reports.reduce((total, report) => total + report[key], 0);
  const turns = sum("turns");
  const rate = seconds > 0 ? ` (${Math.round(turns / seconds)} turns/s)` : "";
  const lines = [
    `ingested ${reports.length} transcript${
      reports.length === 1 ? "" : "s"
    }: ${turns} turns read, ` +
    `${sum("added")} new, ${sum("replaced")} replaced, ${sum("unchanged")} unchanged` +
    (sum("removed") ? `, ${sum("removed")} withdrawn` : "") +
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
  if (invalid > 0) lines.push(`skipped ${invalid} lines that are not JSON`);
  const partial = reports.filter((report) => report.partialLine).length;
  if (partial > 0) {
    lines.push(`${partial} transcript(s) end in a half-written line, left for the next ingest`);
  }
  const redactions = reports.reduce((total, report) => total + report.redactions, 0);
  if (redactions > 0) lines.push(`redacted ${redactions} secrets or <private> spans`);
  if (sum("optedOut") > 0) {
    lines.push(`${sum("optedOut")} turns not stored: their project has a .cairn-no-sessions file`);
  }
  return lines;
}

/** Ingests everything once, then each transcript that changes, until interrupted. */
async function watch(
  context: CommandContext,
  target: string,
  agent: Agent,
  settle: boolean,
): Promise<number> {
  const initial = await transcriptFiles(target, agent);
  // Watch before the first pass, so that no change made meanwhile is missed.
  const watcher = Deno.watchFs(target, { recursive: true });
  const ingest = async (files: string[]) => {
    const started = performance.now();
    const reports = await ingestFiles(context, files, agent, false, settle);
    const seconds = (performance.now() - started) / 1000;
    for (const line of summarise(reports, seconds)) context.out(line);
  };
  const reportError = (error: Error) => context.err(`cairn ingest: ${error.message}`);
  await ingest(initial).catch(reportError);
  context.out(`watching ${target} for changes (Ctrl-C to stop)`);
  await watchBatches(watcher, {
    quietMs: 300,
    maxWaitMs: 3_000,
    accept: isTranscript,
    run: (paths) => ingest(paths.filter(isFile)),
    onError: reportError,
  });
  return 0;
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
