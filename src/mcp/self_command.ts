/**
 * The command line that runs this cairn again in a new process: the same main
 * module under `deno run`, or the compiled binary itself.
 * @module
 */
import { basename } from "node:path";

/**
 * The JavaScript heap limit, as in deno.json's `cairn` task: V8's default
 * (4 GiB here) is reached near a million code chunks, whose texts and word
 * index the owner holds (docs/decisions.md).
 */
const HEAP_FLAG = "--v8-flags=--max-old-space-size=16384";

/** The executable and arguments that run `cairn <args>` in a new process. */
export function selfCommand(args: readonly string[]): { exec: string; args: string[] } {
  const exec = Deno.execPath();
  return /^deno(\.exe)?$/i.test(basename(exec))
    ? { exec, args: ["run", "--allow-all", "--quiet", HEAP_FLAG, Deno.mainModule, ...args] }
    : { exec, args: [...args] };
}
