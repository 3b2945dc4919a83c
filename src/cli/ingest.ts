/**
 * `cairn ingest`: the `ingest` operation from the command line, from a
 * Claude Code hook (`--hook`: the transcript named on standard input) or
 * kept up as transcripts change (`--watch`).
 * @module
 */
import { resolve } from "node:path";
import { z } from "zod";
import { exists } from "../../events/durable_fs.ts";
import { describeIssues, UserError } from "../errors.ts";
import type { IngestReport } from "../service/sessions.ts";
import { checkAllowedPath } from "../service/allowed_roots.ts";
import { isTranscriptFile, subAgentFiles, transcriptsAt } from "../ingest/transcripts/files.ts";
import {
  type Agent,
  ingest,
  type IngestResult,
  transcriptFolder,
  WHOSE,
} from "../ops/session_ops.ts";
import { parseCommandArgs } from "./args.ts";
import { didYouMean } from "../../text/did_you_mean.ts";
import { type Command, type CommandContext, UsageError } from "./command.ts";
import { answerFromOwner } from "./owner_cli.ts";
import { ownerOutput, watchUntilStopped } from "./watch_command.ts";
import { withCairn } from "./with_cairn.ts";

/** Files a watcher's batch sends to the store's owner per request (a request takes 1,000 arguments). */
const RELAYED_FILES = 200;

type IngestInput = z.output<z.ZodObject<typeof ingest.input>>;

/** What a Claude Code hook receives on standard input (the fields cairn reads). */
const HookInput = z.object({
  transcript_path: z.string().min(1),
  hook_event_name: z.string().optional(),
  session_id: z.string().min(1).optional(),
});

/** The agents whose transcripts cairn reads. */
const AGENTS = ["claude", "codex"];

/**
 * `cairn ingest claude|codex [PATH...]`: reads agent session transcripts (files,
 * or every transcript under a directory) into turns, incrementally.
 */
export const ingestCommand: Command = {
  name: ingest.command!,
  summary: ingest.summary,
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
      const given = agent === undefined ? "" : `, not "${agent}"${didYouMean(agent, AGENTS)}`;
      throw new UsageError(`say whose transcripts to read: "claude" or "codex"${given}`);
    }
    if (values.hook && values.watch) throw new UsageError("--hook and --watch do not go together");
    if (values.watch && given.length > 1) throw new UsageError("--watch takes one PATH");
    const settle = values["no-wait"] !== true;
    if (values.watch) {
      const target = given[0] ? resolve(context.cwd, given[0]) : undefined;
      return await watch(context, target, agent, settle);
    }
    // The transcripts are found before the store is opened: a wrong path opens nothing.
    const targets = given.length > 0
      ? given.map((path) => resolve(context.cwd, path))
      : [transcriptFolder(agent)];
    const found = values.hook ? [] : await transcriptsAt(targets, WHOSE[agent]);
    if (!values.hook && found.length === 0) {
      throw new UserError(
        `no ${WHOSE[agent]} transcripts (session .jsonl files) under ${targets.join(", ")} yet; ` +
          `\`cairn ingest ${agent} --watch\` takes them in as they are written`,
      );
    }
    let input: IngestInput = {
      agent,
      paths: found,
      ...(values.final ? { final: true } : {}),
    };
    let starting: string | undefined;
    if (values.hook) {
      if (given.length > 0) {
        throw new UsageError("--hook reads the path from standard input; give no PATH");
      }
      const hook = parseHookInput(context.stdin ?? await new Response(Deno.stdin.readable).text());
      const transcript = resolve(context.cwd, hook.transcript_path);
      if (hook.hook_event_name === "SessionStart") starting = hook.session_id;
      // A session just started may have no transcript yet.
      const paths = starting && !(await exists(transcript))
        ? []
        : await hookFiles(transcript, agent, allowedIn(context));
      input = { ...input, paths, final: values.final || hook.hook_event_name === "SessionEnd" };
    }
    const result = await ingestHere(context, input, settle);
    // What a SessionStart hook prints goes into the agent's context: only the session id there.
    const report = starting ? context.err : context.out;
    const rendered = ingest.render(result, input);
    report(values.json ? JSON.stringify(rendered.json) : rendered.text);
    if (starting) context.out(JSON.stringify(sessionStartOutput(starting)));
    return 0;
  },
};

/** Runs the `ingest` operation on the store (the owner's, or opened here). */
function ingestHere(
  context: CommandContext,
  input: IngestInput,
  settle: boolean,
): Promise<IngestResult> {
  return withCairn(
    context,
    (cairn) =>
      ingest.run(cairn, input, {
        cwd: context.cwd,
        roots: context.roots,
        progress: context.progress,
      }),
    { settle, warn: context.err },
  );
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

/**
 * Ingests everything once, then each transcript that changes, until SIGINT or
 * SIGTERM. The watching stays in this process; each batch runs in the store's
 * owner while one answers, else here, on the store opened for that batch only
 * (so that the lock is free between batches).
 */
async function watch(
  context: CommandContext,
  given: string | undefined,
  agent: Agent,
  settle: boolean,
): Promise<number> {
  const target = given ?? transcriptFolder(agent);
  const check = allowedIn(context);
  const initial = await transcriptsAt([target], WHOSE[agent], check);
  // Watch before the first pass, so that no change made meanwhile is missed.
  const watcher = Deno.watchFs(target, { recursive: true });
  const ingestBatch = async (files: string[]) => {
    files.forEach(check);
    const started = performance.now();
    const transcripts = await ingestInOwner(context, files, agent, settle);
    const result = transcripts
      ? { transcripts, seconds: (performance.now() - started) / 1000 }
      : await ingestHere(context, { agent, paths: files }, settle);
    context.out(ingest.render(result, { agent }).text);
  };
  const reportError = (error: Error) => context.err(`cairn ingest: ${error.message}`);
  await ingestBatch(initial).catch(reportError);
  return await watchUntilStopped(context, watcher, target, {
    quietMs: 300,
    maxWaitMs: 3_000,
    accept: isTranscriptFile,
    run: (paths) => ingestBatch(paths.filter(isFile)),
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
