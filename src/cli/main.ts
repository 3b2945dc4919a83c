import { callerFolder } from "./caller_folder.ts";
import { allowedRoots } from "../service/allowed_roots.ts";
import { type Command, type CommandContext, type InOwner, type Io, UsageError } from "./command.ts";
import { requestFromHere, runInOwner } from "./owner_cli.ts";
import { ProgressLine } from "./progress.ts";
import {
  GlobalOptionError,
  misplacedGlobal,
  readsStdin,
  runByOwner,
  splitGlobal,
} from "./global_options.ts";
import { classify } from "../ops/failure.ts";
import { ArgumentsError } from "../errors.ts";
import { OPERATIONS } from "../ops/table.ts";
import type { AnyOperation } from "../ops/operation.ts";
import { commandsFor } from "./operation_command.ts";
import { recall } from "../ops/search_ops.ts";
import { index } from "../ops/code_ops.ts";
import { withBatch } from "./recall_batch.ts";
import { didYouMean } from "../../text/did_you_mean.ts";
import { compact } from "./compact.ts";
import { indexCommand } from "./index.ts";
import { ingestCommand } from "./ingest.ts";
import { ingest } from "../ops/session_ops.ts";
import { mcp } from "./mcp.ts";
import { reembedCommand } from "./reembed.ts";
import { replay } from "./replay.ts";
import { serveCommand } from "./serve.ts";
import { statusCommand } from "./status.ts";
import { status } from "../ops/status_ops.ts";
import { reembed } from "../ops/reembed_ops.ts";
import { sync } from "../ops/team_ops.ts";
import { stop } from "./stop.ts";
import { storeFolderProblem } from "./store_folder.ts";
import { withStoreInAdvice } from "./store_advice.ts";
import { syncCommand } from "./sync.ts";
import { uiCommand } from "./ui.ts";
import { verify } from "./verify.ts";
import denoConfig from "../../deno.json" with { type: "json" };

/** cairn's version, as deno.json names it. */
const CAIRN_VERSION = denoConfig.version;

/**
 * Operations whose command has forms of its own: `index --watch`, `ingest
 * --hook`, `status` of a store held by another command, `reembed` of a store
 * whose vectors and model differ, `sync --watch`.
 */
const OWN_COMMANDS: ReadonlySet<AnyOperation> = new Set([index, ingest, status, reembed, sync]);

/**
 * Commands whose standard output shows what the store holds (memories, code,
 * turns, the graph) or speaks a protocol: their advice is not rewritten there
 * (see `store_advice.ts`), their errors are.
 */
const SHOWS_CONTENT: ReadonlySet<string> = new Set([
  "recall",
  "search",
  "search-text",
  "search-code",
  "open",
  "history",
  "remember",
  "revise",
  "forget",
  "list",
  "get",
  "graph",
  "mcp",
  "serve",
]);

/** Every command, in the order `cairn --help` lists them. */
export const commands: readonly Command[] = [
  ...commandsFor(OPERATIONS.filter((op) => !OWN_COMMANDS.has(op))).map((command) =>
    command.name === recall.command ? withBatch(command) : command
  ),
  indexCommand,
  ingestCommand,
  statusCommand,
  verify,
  replay,
  reembedCommand,
  syncCommand,
  compact,
  mcp,
  serveCommand(runCli),
  stop,
  uiCommand,
];

const USAGE = `cairn: a local knowledge service for AI coding agents

usage: cairn [--store DIR] [--no-owner] <command> [options]

options:
  --store DIR   the store to use (default: $CAIRN_HOME or the platform data directory)
  --no-owner    run here instead of starting the store's owner (also CAIRN_NO_OWNER=1);
                an owner already running still runs the command, since it holds the store
  --help        show this help, or a command's help after the command name (or: cairn help COMMAND)
  --version     show cairn's version

commands:
${commands.map((c) => `  ${c.name.padEnd(16)}${c.summary}`).join("\n")}`;

const consoleIo: Io = { out: (line) => console.log(line), err: (line) => console.error(line) };

/** Where {@linkcode runCli} runs a command. */
export interface RunOptions {
  /** The command runs inside the store's owner, for a caller. */
  inOwner?: InOwner;
  /**
   * Start the store's owner when none runs, for the commands it runs (what
   * `cairn` does unless `--no-owner` or `CAIRN_NO_OWNER=1`). Default false:
   * an owner already running is used, else the command opens the store here.
   */
  startOwner?: boolean;
  /** Standard input, when the caller has read it already. */
  stdin?: string;
  /**
   * The caller's folder and allowed roots, when not this process's own (its
   * working folder and `CAIRN_ALLOWED_ROOTS`): tests run the CLI in-process as
   * if typed in another folder, with other roots.
   */
  caller?: { cwd: string; roots: string[] };
}

/**
 * Runs the CLI on `argv` and resolves to the exit code; never throws on bad
 * input. A command the store's owner runs is sent to it (see {@linkcode RunOptions}).
 */
export async function runCli(
  argv: string[],
  io: Io = consoleIo,
  { inOwner, startOwner = false, stdin: given, caller }: RunOptions = {},
): Promise<number> {
  const split = splitGlobal(argv);
  if (split instanceof GlobalOptionError) {
    io.err(`cairn: ${split.message}\n\n${USAGE}`);
    return 2;
  }
  const { storeDir, storeGiven, help, version, noOwner, rest } = split;
  if (version) {
    io.out(`cairn ${CAIRN_VERSION}`);
    return 0;
  }
  const asked = rest[0] === "help" ? rest.slice(1) : rest;
  const [name, ...args] = asked;
  if (!name) {
    (help || rest[0] === "help" ? io.out : io.err)(USAGE);
    return help || rest[0] === "help" ? 0 : 2;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    const names = commands.map((c) => c.name);
    io.err(
      `cairn: unknown command "${name}"${didYouMean(name, names)}; \`cairn --help\` lists them`,
    );
    return 2;
  }
  if (help || asked !== rest || args.includes("--help") || args.includes("-h")) {
    io.out(`cairn ${command.name}: ${command.summary}\n\nusage: ${command.usage}`);
    return 0;
  }
  const misplaced = misplacedGlobal(args);
  if (misplaced !== undefined) {
    io.err(
      `cairn ${name}: ${misplaced} is cairn's own option and goes before the command: ` +
        `cairn ${misplaced}${misplaced === "--store" ? " DIR" : ""} ${name} ...`,
    );
    return 2;
  }
  const relayed = runByOwner(name, args);
  if (inOwner && !relayed) {
    io.err(`cairn: ${name} needs the store to itself; stop its \`cairn serve\` first`);
    return 1;
  }
  // Standard input a command reads is read once, for the owner or for the command run here.
  const stdin = inOwner?.stdin ?? given ??
    (relayed && readsStdin(args) ? await new Response(Deno.stdin.readable).text() : undefined);
  // Progress is one line redrawn in place (or an occasional line), ended before any other output.
  const line = new ProgressLine(io.err, io === consoleIo && Deno.stderr.isTerminal());
  // What the store holds is shown as it is (a memory may quote a command), and so is JSON, whose
  // quoting a store's path could break: only cairn's own words repeat the store.
  const ownWords = !SHOWS_CONTENT.has(name) && !args.includes("--json");
  const advised = (text: string, own: boolean) =>
    storeGiven && own ? withStoreInAdvice(text, storeDir) : text;
  const output = {
    out: (text: string) => (line.end(), io.out(advised(text, ownWords))),
    err: (text: string) => (line.end(), io.err(advised(text, true))),
    progress: io.progress ?? ((text: string, done?: number) => line.show(text, done)),
  };
  try {
    command.check?.(args);
    // The owner has its store open; a command line run for the user may name a store not there.
    const unusable = inOwner
      ? undefined
      : await storeFolderProblem(storeDir, command.needsStore?.(args) ?? false);
    if (unusable !== undefined) {
      output.err(`cairn ${name}: ${unusable}`);
      return 1;
    }
    if (!inOwner && relayed) {
      const start = startOwner && !noOwner;
      const code = await runInOwner(
        storeDir,
        { ...requestFromHere(rest, stdin), ...caller },
        output,
        start,
      );
      if (code !== undefined) return code;
    }
    const context: CommandContext = {
      storeDir,
      args,
      ...output,
      cwd: inOwner?.cwd ?? caller?.cwd ?? callerFolder(),
      roots: inOwner?.roots ?? caller?.roots ?? allowedRoots(),
      ...(inOwner ? { owner: inOwner.owner } : {}),
      ...(stdin === undefined ? {} : { stdin }),
    };
    return await command.run(context);
  } catch (error) {
    return report(error, command, output);
  } finally {
    line.end();
  }
}

function report(error: unknown, command: Command, io: Io): number {
  // A mistake in the command's words, however deep it was found, is answered with the usage.
  if (error instanceof UsageError || error instanceof ArgumentsError) {
    io.err(`cairn ${command.name}: ${error.message}\nusage: ${command.usage}`);
    return 2;
  }
  const failure = classify(error);
  io.err(`cairn ${command.name}: ${failure.message}`);
  const debug = Deno.env.get("CAIRN_DEBUG");
  if (debug && (failure.kind === "internal" || failure.kind === "disk_full")) {
    io.err(error instanceof Error ? error.stack ?? "" : "");
  } else if (failure.kind === "internal") io.err("(set CAIRN_DEBUG=1 to see where it happened)");
  return 1;
}
