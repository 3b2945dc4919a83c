/**
 * CLI commands run by the store's owner (`cairn serve`, started on demand):
 * the owner holds the store's writer lock, the model and the open
 * projections, so a command sent to it runs there and its output and progress
 * stream back as it goes. The request carries the caller's working folder
 * (relative paths start there) and, for `ingest --hook`, its standard input. Protected like MCP: 127.0.0.1, the store's bearer token.
 * @module
 */
import { neverSent, ownerDied, ownerFetch } from "../mcp/owner_death.ts";
import { runningOwner, startedOwner } from "../mcp/owner_start.ts";
import { allowedRoots } from "../service/allowed_roots.ts";
import { callerFolder } from "./caller_folder.ts";
import type { CliRequest } from "./cli_request.ts";

/** The path the owner runs relayed commands on. */
export const CLI_PATH = "/cli";

/**
 * The request for command line `args` from this process: its folder (the
 * shell's, or `INIT_CWD` under `deno task`) and allowed roots, and the
 * standard input it read for the command, if any.
 */
export function requestFromHere(args: string[], stdin?: string): CliRequest {
  return {
    args,
    cwd: callerFolder(),
    roots: allowedRoots(),
    ...(stdin === undefined ? {} : { stdin }),
  };
}

/**
 * What the owner sends back, one JSON object a line, as the command runs: a
 * line of its output, of its errors, its progress, and last its exit code.
 */
export type CliLine =
  | { out: string }
  | { err: string }
  | { progress: string; done?: number }
  | { code: number };

/**
 * The line the owner sent as `text`; throws when it is none of
 * {@linkcode CliLine}'s. Checked by hand, not with zod: loading zod took a
 * third of the start of a command sent to the owner.
 */
export function cliLine(text: string): CliLine {
  const value: unknown = JSON.parse(text);
  const fields = typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
  const keys = Object.keys(fields).sort().join(",");
  if (keys === "out" && typeof fields.out === "string") return { out: fields.out };
  if (keys === "err" && typeof fields.err === "string") return { err: fields.err };
  if (keys === "code" && Number.isInteger(fields.code)) return { code: fields.code as number };
  if ((keys === "progress" || keys === "done,progress") && typeof fields.progress === "string") {
    const { done } = fields;
    if (done === undefined) return { progress: fields.progress };
    if (typeof done === "number" && done >= 0 && done <= 1) {
      return { progress: fields.progress, done };
    }
  }
  throw new Error(`the owner sent a line cairn does not know: ${text.slice(0, 200)}`);
}

/** Where the lines of a command run by the owner go. */
export interface CliOutput {
  out: (line: string) => void;
  err: (line: string) => void;
  progress: (text: string, done?: number) => void;
}

/** The exit code of a command line stopped by Ctrl-C, as shells give one (128 + SIGINT). */
const INTERRUPTED_EXIT = 130;

/**
 * How long a command whose owner could not start (the store was locked, say)
 * still looks for another client's owner before it opens the store itself.
 */
const OWNER_RACE_MS = 2_000;

/**
 * Sends a command to the store's owner, passes what it writes to `output` as
 * it comes, and resolves to its exit code. With `start`, an owner is started
 * when none answers. Undefined when no owner answers and none could be
 * started (the caller then opens the store itself, and meets the lock if
 * something else holds it).
 */
export async function runInOwner(
  storeDir: string,
  request: CliRequest,
  output: CliOutput,
  start = false,
): Promise<number | undefined> {
  const owner = start
    ? await startedOwner(storeDir, { log: output.err, giveUpAfterExitMs: OWNER_RACE_MS })
    : await runningOwner(storeDir);
  if (!owner) return undefined;
  const what = `\`cairn ${request.args.join(" ")}\``;
  let response: Response;
  try {
    response = await ownerFetch(`http://127.0.0.1:${owner.port}${CLI_PATH}`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
      body: JSON.stringify(request),
    });
  } catch (error) {
    if (neverSent(error)) return undefined;
    return died(await ownerDied(storeDir, what, error), output);
  }
  if (!response.ok) {
    const body = await response.json().catch(() => undefined);
    const error = (body as { error?: unknown } | undefined)?.error;
    // Something else listens on a dead owner's port: not ours to ask.
    if (typeof error !== "string") return undefined;
    output.err(`cairn: the store's owner (pid ${owner.pid}) refused the command: ${error}`);
    return 1;
  }
  // Ctrl-C stops this process's wait, not the command: the owner runs it to its end.
  const interrupted = () => {
    output.err(
      `cairn: stopped waiting for ${what}; the store's owner finishes it on its own ` +
        "(`cairn status` shows how far)",
    );
    Deno.exit(INTERRUPTED_EXIT);
  };
  Deno.addSignalListener("SIGINT", interrupted);
  try {
    for await (
      const text of response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(lines())
    ) {
      const line = cliLine(text);
      if ("out" in line) output.out(line.out);
      else if ("err" in line) output.err(line.err);
      else if ("progress" in line) output.progress(line.progress, line.done);
      else return line.code;
    }
  } catch (error) {
    return died(await ownerDied(storeDir, what, error), output);
  } finally {
    Deno.removeSignalListener("SIGINT", interrupted);
  }
  return died(await ownerDied(storeDir, what, new Error("its answer ended early")), output);
}

function died(error: Error, output: CliOutput): number {
  output.err(`cairn: ${error.message}`);
  return 1;
}

/** Splits a text stream into its lines. */
function lines(): TransformStream<string, string> {
  let rest = "";
  return new TransformStream({
    transform(chunk, controller) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      for (const part of parts) if (part) controller.enqueue(part);
    },
    flush(controller) {
      if (rest) controller.enqueue(rest);
    },
  });
}

/** A command's whole answer from the owner: its exit code and the lines it wrote. */
export interface CliAnswer {
  code: number;
  out: string[];
  err: string[];
}

/**
 * Runs a command in the store's owner (one already running) and resolves to
 * its whole answer once it ends, its progress left out; undefined when no
 * owner answers.
 */
export async function answerFromOwner(
  storeDir: string,
  request: CliRequest,
): Promise<CliAnswer | undefined> {
  const answer: CliAnswer = { code: 0, out: [], err: [] };
  const code = await runInOwner(storeDir, request, {
    out: (line) => answer.out.push(line),
    err: (line) => answer.err.push(line),
    progress: () => {},
  });
  return code === undefined ? undefined : { ...answer, code };
}
