/**
 * `cairn serve` run in this process, for tests of what the store's owner
 * does rather than of its process: the same command, listening on 127.0.0.1
 * with its token and `serve.json`, relaying the CLI and answering MCP, with
 * the model shared between tests (see test/embed/shared_model.ts).
 * @module
 */
import "../embed/shared_model.ts";
import { runCli } from "../../src/cli/main.ts";
import { stopOwner } from "../../src/mcp/owner_start.ts";
import { readOwnerRecord } from "../../src/mcp/owner_file.ts";

/** An owner serving in this process; disposing stops it (if it still runs) and waits for it. */
export interface ServeHere extends AsyncDisposable {
  /** Asks it to step aside, as `cairn replay` does, and resolves to its exit code. */
  stop(): Promise<number>;
}

/** Starts `cairn serve` on `store` in this process and waits until it listens. */
export async function serveHere(store: string): Promise<ServeHere> {
  const log: string[] = [];
  let exited = false;
  const running = runCli(["--store", store, "serve", "--port", "0"], {
    out: (line) => log.push(line),
    err: (line) => log.push(line),
  }).finally(() => (exited = true));
  while ((await readOwnerRecord(store))?.pid !== Deno.pid) {
    if (exited) throw new Error(`cairn serve did not start:\n${log.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const stop = async () => {
    if (!exited) await stopOwner(store);
    return await running;
  };
  return { stop, [Symbol.asyncDispose]: async () => void await stop() };
}
