import { runCli } from "../../src/cli/main.ts";
import { allowedRoots } from "../../src/service/allowed_roots.ts";
import { openCairn } from "../../src/service/cairn.ts";
import "../embed/shared_model.ts";

/** What of a child's environment a run in this process can take on: what the caller's roots read. */
const CALLER_ENV = new Set(["CAIRN_ALLOWED_ROOTS", "HOME"]);

/** Where {@linkcode cliHere} runs the CLI: as `cli()` (test/helpers.ts) takes them for a child. */
export interface HereOptions {
  /** Standard input. */
  stdin?: string;
  /** The folder the command is typed in (default: this process's). */
  cwd?: string;
  /**
   * Environment variables on top of this process's; only those the caller's
   * allowed roots are read from (`CAIRN_ALLOWED_ROOTS`, `HOME`): others need a
   * child process, and are refused rather than ignored.
   */
  env?: Record<string, string>;
}

/**
 * Runs the CLI in this process with `args`, as `cli()` (test/helpers.ts) runs
 * it in a child process with its owner off: the same exit code, and standard
 * output and error as the child would print them (a line each).
 */
export async function cliHere(
  args: string[],
  { stdin, cwd, env }: HereOptions = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const foreign = Object.keys(env ?? {}).filter((name) => !CALLER_ENV.has(name));
  if (foreign.length) {
    throw new Error(`cliHere cannot set ${foreign.join(", ")} in this process; run cli() instead`);
  }
  const out: string[] = [];
  const err: string[] = [];
  const caller = cwd === undefined && env === undefined ? undefined : {
    cwd: cwd ?? Deno.cwd(),
    roots: allowedRoots((name) => env?.[name] ?? Deno.env.get(name)),
  };
  const code = await runCli(
    args,
    { out: (line) => out.push(`${line}\n`), err: (line) => err.push(`${line}\n`) },
    { ...(stdin === undefined ? {} : { stdin }), ...(caller ? { caller } : {}) },
  );
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** Runs the CLI in this process on `store`, and what it printed (lines joined). */
export async function cairnInProcess(
  store: string,
  ...args: string[]
): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout, stderr } = await cliHere(["--store", store, ...args]);
  return { code, out: stdout.replace(/\n$/, ""), err: stderr.replace(/\n$/, "") };
}

/**
 * A store held open in this process as its owner (`cairn serve`) holds it;
 * disposing waits for its vectors and closes it.
 */
export interface OwnerHere extends AsyncDisposable {
  /**
   * Runs a command (the line after `--store DIR`) as the owner runs one a
   * caller in this process's folder sends it, with what it printed as
   * {@linkcode cliHere} gives it. The store stays open between commands, and
   * the model loaded: vectors follow in the background, as in the owner.
   */
  cli(args: string[], options?: { stdin?: string }): ReturnType<typeof cliHere>;
}

/** Opens `store` as its owner opens it, to run many commands in it. */
export async function ownerHere(store: string): Promise<OwnerHere> {
  const owner = await openCairn(store, { awaitModel: false });
  return {
    async cli(args, { stdin } = {}) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(
        args,
        { out: (line) => out.push(`${line}\n`), err: (line) => err.push(`${line}\n`) },
        {
          inOwner: {
            owner,
            cwd: Deno.cwd(),
            roots: allowedRoots(),
            ...(stdin === undefined ? {} : { stdin }),
          },
        },
      );
      return { code, stdout: out.join(""), stderr: err.join("") };
    },
    // The vectors are let finish first: a model still loading writes into the store after close.
    [Symbol.asyncDispose]: async () => {
      await owner.store.runner.settled();
      await owner.close();
    },
  };
}
