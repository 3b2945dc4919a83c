/**
 * A `cairn … --watch` command run in this process for tests, as
 * `watchProcess` (watch_process.ts) runs one in a child: its output gathered
 * as it comes, waited on with a deadline, and stopped as SIGTERM stops it.
 * @module
 */
import { runCli } from "../../src/cli/main.ts";
import { stopWaitsHere } from "../../src/cli/signals.ts";
import { allowedRoots } from "../../src/service/allowed_roots.ts";
import type { WatchProcess } from "./watch_process.ts";

/** How long a test waits for a line it expects before it fails. */
const DEADLINE_MS = 20_000;

/**
 * Starts `cairn ARGS` (which should include `--watch`) in this process, with
 * the allowed roots `env` names (as `cliHere` takes them). Stopping it ends
 * every wait for a signal in this process (see `stopWaitsHere`).
 */
export function watchHere(args: string[], env: Record<string, string> = {}): WatchProcess {
  let stdout = "";
  let stderr = "";
  let said = Promise.withResolvers<void>();
  const heard = () => {
    said.resolve();
    said = Promise.withResolvers<void>();
  };
  let exited = false;
  const running = runCli(
    args,
    {
      out: (line) => (stdout += `${line}\n`, heard()),
      err: (line) => (stderr += `${line}\n`, heard()),
    },
    { caller: { cwd: Deno.cwd(), roots: allowedRoots((name) => env[name] ?? Deno.env.get(name)) } },
  ).finally(() => {
    exited = true;
    heard();
  });
  const stop = async () => {
    if (!exited) stopWaitsHere();
    return { code: await running, stdout, stderr };
  };
  return {
    async waitFor(pattern) {
      const deadline = Date.now() + DEADLINE_MS;
      while (!pattern.test(stdout)) {
        const left = deadline - Date.now();
        if (exited || left <= 0) {
          throw new Error(
            `no ${pattern} in the watcher's output${exited ? " (it exited)" : ""}:\n` +
              `${stdout}\nstandard error:\n${stderr}`,
          );
        }
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([said.promise, new Promise((done) => (timer = setTimeout(done, left)))])
          .finally(() => clearTimeout(timer));
      }
      return stdout;
    },
    stop,
    [Symbol.asyncDispose]: async () => void await stop(),
  };
}
