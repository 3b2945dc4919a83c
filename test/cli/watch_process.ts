/**
 * A real `cairn … --watch` process for tests: its output gathered as it comes,
 * waited on with a deadline, and the process stopped by a signal.
 * @module
 */
import { MAIN } from "../helpers.ts";

/** How long a test waits for a line it expects before it fails. */
const DEADLINE_MS = 20_000;

/** A running watcher. Disposing kills it if it still runs. */
export interface WatchProcess extends AsyncDisposable {
  /** Waits until the standard output so far matches `pattern`; returns that output. */
  waitFor(pattern: RegExp): Promise<string>;
  /** Sends `signal`, waits for the exit, and returns the exit code and all output. */
  stop(signal?: Deno.Signal): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** Starts `cairn ARGS` (which should include `--watch`) in a child process. */
export function watchProcess(args: string[], env: Record<string, string> = {}): WatchProcess {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, ...args],
    env: { CAIRN_NO_OWNER: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stdout = "";
  let stderr = "";
  const pumped = Promise.all([
    (async () => {
      for await (const text of child.stdout.pipeThrough(new TextDecoderStream())) stdout += text;
    })(),
    (async () => {
      for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) stderr += text;
    })(),
  ]);
  let exited = false;
  const status = child.status.then((status) => {
    exited = true;
    return status;
  });
  const stop = async (signal: Deno.Signal = "SIGTERM") => {
    if (!exited) child.kill(signal);
    const { code } = await status;
    await pumped;
    return { code, stdout, stderr };
  };
  return {
    async waitFor(pattern) {
      const deadline = Date.now() + DEADLINE_MS;
      while (!pattern.test(stdout)) {
        if (exited || Date.now() > deadline) {
          throw new Error(
            `no ${pattern} in the watcher's output${exited ? " (it exited)" : ""}:\n` +
              `${stdout}\nstandard error:\n${stderr}`,
          );
        }
        await new Promise((done) => setTimeout(done, 25));
      }
      return stdout;
    },
    stop,
    [Symbol.asyncDispose]: async () => {
      await stop("SIGKILL");
    },
  };
}
