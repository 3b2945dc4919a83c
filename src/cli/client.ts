/**
 * The fast path of a command line: a command the store's owner runs goes to
 * it (started when none runs) before the store's modules are even loaded, so
 * a one-shot `cairn recall` costs little more than a process start. Its
 * arguments are checked by the owner, which answers usage errors as the
 * command would.
 * @module
 */
import {
  GlobalOptionError,
  misplacedGlobal,
  readsStdin,
  runByOwner,
  splitGlobal,
} from "./global_options.ts";
import { OwnerNotStarted } from "../mcp/owner_start.ts";
import { requestFromHere, runInOwner } from "./owner_cli.ts";
import { ProgressLine } from "./progress.ts";

/**
 * What became of a command line sent to the owner: its exit code, or what
 * the full command line needs to run it here (whether an owner was tried,
 * and the standard input already read for it).
 */
export type Sent = { code: number } | { tried: boolean; stdin?: string };

/**
 * Runs `argv` in the store's owner when the owner runs that command (not
 * help, not `--watch`), starting one with `startOwner`.
 */
export async function sendToOwner(argv: string[], startOwner: boolean): Promise<Sent> {
  const split = splitGlobal(argv);
  if (split instanceof GlobalOptionError || split.help) return { tried: false };
  const [name, ...args] = split.rest;
  if (!name || !runByOwner(name, args)) return { tried: false };
  if (args.includes("--help") || args.includes("-h")) return { tried: false };
  // Run here, where the mistake is explained before any owner starts.
  if (misplacedGlobal(args) !== undefined) return { tried: false };
  // A store folder not there yet (or not a folder) is for the full command line to judge.
  if (!await isFolder(split.storeDir)) return { tried: false };
  const stdin = readsStdin(args) ? await new Response(Deno.stdin.readable).text() : undefined;
  const line = new ProgressLine((text) => console.error(text), Deno.stderr.isTerminal());
  try {
    const code = await runInOwner(
      split.storeDir,
      requestFromHere(split.rest, stdin),
      {
        out: (text) => (line.end(), console.log(text)),
        err: (text) => (line.end(), console.error(text)),
        progress: (text, done) => line.show(text, done),
      },
      startOwner && !split.noOwner,
    );
    return code === undefined
      ? { tried: true, ...(stdin === undefined ? {} : { stdin }) }
      : { code };
  } catch (error) {
    // Told as the command would tell it, without a stack: the owner's log says the rest.
    if (!(error instanceof OwnerNotStarted)) throw error;
    line.end();
    console.error(`cairn ${name}: ${error.message}`);
    return { code: 1 };
  } finally {
    line.end();
  }
}

async function isFolder(path: string): Promise<boolean> {
  return await Deno.stat(path).then((stat) => stat.isDirectory, () => false);
}
