/**
 * Running `cairn --store STORE ARGS` as a process group, to its end or to a failed check.
 * @module
 */
import { Group, MAIN } from "./processes.ts";

/** How a cairn command ended: exit code, output, duration, and whether it timed out. */
export interface Ran {
  code: number;
  out: string;
  err: string;
  ms: number;
  timedOut: boolean;
}

function cairnArgs(store: string, args: string[]): string[] {
  return ["run", "--allow-all", "--quiet", MAIN, "--store", store, ...args];
}

/** Starts `cairn --store STORE ARGS` in its own process group. */
export function startCairn(store: string, args: string[]): Group {
  return new Group(Deno.execPath(), cairnArgs(store, args));
}

/** Runs `cairn --store STORE ARGS` to its end. */
export async function cairn(store: string, args: string[]): Promise<Ran> {
  const group = startCairn(store, args);
  const { code, timedOut } = await group.wait();
  return { code, out: group.out, err: group.err, ms: performance.now() - group.started, timedOut };
}

/** A check could not be made: a command that reads the store failed. */
export class CheckFailed extends Error {}

/** Runs a command whose failure means the check cannot be made. */
export async function cairnOk(store: string, args: string[]): Promise<Ran> {
  const ran = await cairn(store, args);
  if (ran.code !== 0) {
    throw new CheckFailed(
      `\`cairn ${args.join(" ")}\` exited ${ran.timedOut ? "(timed out)" : ran.code}: ${
        brief(ran.err || ran.out)
      }`,
    );
  }
  return ran;
}

/** `text` on one line, cut to `max` characters, for a report line. */
export function brief(text: string, max = 400): string {
  const flat = text.trim().replace(/\s*\n\s*/g, " | ");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** Runs `cairn ARGS` again, as a user would; the problem when it fails (shown as `cairn SHOWN`). */
export async function runAgain(
  store: string,
  args: string[],
  shown = args.join(" "),
): Promise<string[]> {
  const again = await cairn(store, args);
  return again.code !== 0 ? [`\`cairn ${shown}\` exited ${again.code}: ${brief(again.err)}`] : [];
}
