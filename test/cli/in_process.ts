import { runCli } from "../../src/cli/main.ts";

/**
 * Runs the CLI in this process with `args`, as `cli()` (test/helpers.ts) runs
 * it in a child process with its owner off: the same exit code, and standard
 * output and error as the child would print them (a line each).
 */
export async function cliHere(
  args: string[],
  options: { stdin?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    args,
    { out: (line) => out.push(`${line}\n`), err: (line) => err.push(`${line}\n`) },
    options.stdin === undefined ? {} : { stdin: options.stdin },
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
