import { runCli } from "../../src/cli/main.ts";

/** Runs the CLI in this process on `store`, and what it printed. */
export async function cairnInProcess(
  store: string,
  ...args: string[]
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(["--store", store, ...args], {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}
