import { join, resolve } from "node:path";
import { z } from "zod";
import { exists } from "../../events/durable_fs.ts";
import { describeIssues, UserError } from "../errors.ts";
import type { IngestReport } from "../service/sessions.ts";
import { checkAllowedPath } from "../service/allowed_roots.ts";
import { isTranscriptFile, subAgentFiles, transcriptsAt } from "../ingest/transcripts/files.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, type CommandContext, UsageError } from "./command.ts";
import { answerFromOwner } from "./owner_cli.ts";
import { ownerOutput, watchUntilStopped } from "./watch_command.ts";
import { withCairn } from "./with_cairn.ts";

type Agent = "claude" | "codex";

const WHOSE: Record<Agent, string> = { claude: "Claude Code", codex: "Codex" };

/** Files a watcher's batch sends to the store's owner per request (a request takes 1,000 arguments). */
const RELAYED_FILES = 200;

/** What a Claude Code hook receives on standard input (the fields cairn reads). */
const HookInput = z.object({
  transcript_path: z.string().min(1),
  hook_event_name: z.string().optional(),
  session_id: z.string().min(1).optional(),
});

/**
 * `cairn ingest claude|codex [PATH...]`: reads agent session transcripts (files,
 * or every transcript under a directory) into turns, incrementally.
 */
export const ingest: Command = {
  name: "ingest",
  summary: "read agent session transcripts (Claude Code, Codex)",
  usage:
    "cairn ingest claude|codex [PATH...] [--hook] [--final] [--watch] [--no-wait] [--json]\n\n" +
    "  PATH       transcript files (.jsonl) or directories of them (default: ~/.claude/projects,\n" +
    "             ~/.codex/sessions)\n" +
    "  --hook     read the path from a Claude Code hook's JSON on standard input; the session's\n" +
    "             sub-agents come along (SessionEnd makes the last turn final; on SessionStart\n" +
    "             the agent is told its session id, for recall's in-context exclusion)\n" +
    "  --final    the session has ended: its last turn is final, not provisional\n" +
    "  --watch    keep running and ingest transcripts as they change (through the store's\n" +
    "             owner while one runs)\n" +
    "  --no-wait  return before the turns' embeddings are computed (the next open does it)\n\n" +
    "With --hook or --watch, what is read must lie in CAIRN_ALLOWED_ROOTS (default: your home).",
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.args, {
      hook: { type: "boolean" },
      final: { type: "boolean" },
      watch: { type: "boolean" },
      "no-wait": { type: "boolean" },
      json: { type: "boolean" },
    }, true);
    const [agent, ...given] = positionals;
    if (agent !== "claude" && agent !== "codex") {
      throw new UsageError('say whose transcripts to read: "claude" or "codex"');
    }
    if (values.hook && values.watch) throw new UsageError("--hook and --watch do not go together");
    if (values.watch && given.length > 1) throw new UsageError("--watch takes one PATH");
    const targets = given.length > 0
      ? given.map((path) => resolve(context.cwd, path))
      : [defaultDir(agent)];
    const settle = values["no-wait"] !== true;
    if (values.watch) return await watch(context, targets[0]!, agent, settle);
    let files: string[];
    let final = values.final === true;
    let starting: string | undefined;
    if (values.hook) {
      if (given.length > 0) {
        throw new UsageError("--hook reads the path from standard input; give no PATH");
      }
      const hook = parseHookInput(context.stdin ?? await new Response(Deno.stdin.readable).text());
      final ||= hook.hook_event_name === "SessionEnd";
      const transcript = resolve(context.cwd, hook.transcript_path);
      if (hook.hook_event_name === "SessionStart") starting = hook.session_id;
      // A session just started may have no transcript yet.
      files = starting && !(await exists(transcript))
        ? []
        : await hookFiles(transcript, agent, allowedIn(context));
    } else files = await transcriptsAt(targets, WHOSE[agent]);
    const started = performance.now();
    const reports = await ingestFiles(context, files, agent, final, settle);
    const seconds = (performance.now() - started) / 1000;
    // What a SessionStart hook prints goes into the agent's context: only the session id there.
    const report = starting ? context.err : context.out;
    if (values.json) report(JSON.stringify({ seconds, transcripts: reports }));
    else for (const line of summarise(reports, seconds)) report(line);
    if (starting) context.out(JSON.stringify(sessionStartOutput(starting)));
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
    let turns = 0;
    for (const [i, path] of files.entries()) {
      if (files.length > 1) {
        context.progress(`transcripts ${i}/${files.length}, ${turns} new turns`, i / files.length);
      }
      reports.push(await cairn.sessions.ingest({ path, agent, final }));
      turns += reports.at(-1)!.added;
    }
    return reports;
  }, { settle, warn: context.err });
}

/** A SessionStart hook's answer: tells the agent its session id and what recall does with it. */
function sessionStartOutput(session: string): unknown {
  return {
    hookSpecificOutput: {
      hookEventName: "SessionStart",
      additionalContext: `This session's id is ${session}. When you call cairn's recall, pass ` +
        `session: "${session}": past sessions are searched, and this session's turns still in ` +
        "your context are left out.",
    },
  };
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

/**
 * A check that a path lies in the allowed roots, for what this command reads
 * unattended (a hook's transcript, a watched folder); its refusal says where
 * `CAIRN_ALLOWED_ROOTS` is read: in the owner when the command runs there.
 */
function allowedIn(context: CommandContext): (path: string) => void {
  return (path) =>
    void checkAllowedPath(path, context.roots, "in the environment this command runs from");
}

/** The transcript a hook names, with its sub-agents' files (Claude Code), all checked. */
async function hookFiles(
  path: string,
  agent: Agent,
  check: (path: string) => void,
): Promise<string[]> {
  const found = await transcriptsAt([path], WHOSE[agent], check);
  if (found.length !== 1 || found[0] !== path) {
    throw new UserError(`--hook input names ${path}, which is not a transcript file`);
  }
  const subAgents = agent === "claude" ? await subAgentFiles(path) : [];
  subAgents.forEach(check);
  return [path, ...subAgents];
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
  const oversized = reports.reduce((total, report) => total + report.oversizedLines, 0);
  if (oversized > 0) lines.push(`skipped ${oversized} lines over 16 MiB (a tool's runaway output)`);
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

/**
 * Ingests everything once, then each transcript that changes, until SIGINT or
 * SIGTERM. The watching stays in this process; each batch runs in the store's
 * owner while one answers, else here, on the store opened for that batch only
 * (so that the lock is free between batches).
 */
async function watch(
  context: CommandContext,
  target: string,
  agent: Agent,
  settle: boolean,
): Promise<number> {
  const check = allowedIn(context);
  const initial = await transcriptsAt([target], WHOSE[agent], check);
  // Watch before the first pass, so that no change made meanwhile is missed.
  const watcher = Deno.watchFs(target, { recursive: true });
  const ingest = async (files: string[]) => {
    files.forEach(check);
    const started = performance.now();
    const reports = await ingestInOwner(context, files, agent, settle) ??
      await ingestFiles(context, files, agent, false, settle);
    const seconds = (performance.now() - started) / 1000;
    for (const line of summarise(reports, seconds)) context.out(line);
  };
  const reportError = (error: Error) => context.err(`cairn ingest: ${error.message}`);
  await ingest(initial).catch(reportError);
  return await watchUntilStopped(context, watcher, target, {
    quietMs: 300,
    maxWaitMs: 3_000,
    accept: isTranscriptFile,
    run: (paths) => ingest(paths.filter(isFile)),
    onError: reportError,
  });
}

/**
 * Ingests `files` in the store's owner, some at a time; undefined when no
 * owner answers. The owner's refusal comes back as a {@linkcode UserError}.
 */
async function ingestInOwner(
  context: CommandContext,
  files: readonly string[],
  agent: Agent,
  settle: boolean,
): Promise<IngestReport[] | undefined> {
  const reports: IngestReport[] = [];
  for (let at = 0; at < files.length; at += RELAYED_FILES) {
    const args = ["ingest", agent, ...files.slice(at, at + RELAYED_FILES), "--json"];
    const answer = await answerFromOwner(context.storeDir, {
      args: settle ? args : [...args, "--no-wait"],
      cwd: context.cwd,
      roots: context.roots,
    });
    if (!answer) return undefined;
    reports.push(...JSON.parse(ownerOutput(context, "ingest", answer)).transcripts);
  }
  return reports;
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
