/**
 * Long command-line arguments (a pasted issue, a long memory) are handed to a
 * new cairn process through a file, not its command line: onnxruntime reads
 * `/proc/self/cmdline` while it loads a model and recurses over it, so a
 * command line of about 15 KB overflows the inference worker's stack and
 * aborts the process.
 * @module
 */
import { selfCommand } from "../mcp/self_command.ts";

/** Command lines longer than this (in UTF-16 units) are passed through a file. */
const MAX_COMMAND_LINE = 4096;
/** The variable naming the file a relaunched cairn reads its arguments from. */
const ARGUMENTS_FILE = "CAIRN_ARGUMENTS_FILE";

/**
 * Runs cairn again with `args` passed through a file when they are too long
 * for a command line, and resolves to its exit code; undefined when they fit,
 * for this process to run them itself.
 */
export async function relaunchWithLongArguments(
  args: readonly string[],
): Promise<number | undefined> {
  if (args.reduce((total, arg) => total + arg.length + 1, 0) <= MAX_COMMAND_LINE) return undefined;
  const file = await Deno.makeTempFile({ prefix: "cairn-arguments-" });
  try {
    await Deno.writeTextFile(file, JSON.stringify(args), { mode: 0o600 });
    const self = selfCommand([]);
    const child = new Deno.Command(self.exec, {
      args: self.args,
      env: { [ARGUMENTS_FILE]: file },
      stdin: "inherit",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn();
    return (await child.status).code;
  } finally {
    await Deno.remove(file).catch(() => {});
  }
}

/** This process's arguments: from the file a relaunch left, else its command line. */
export async function commandArguments(): Promise<string[]> {
  const file = Deno.env.get(ARGUMENTS_FILE);
  if (!file) return Deno.args;
  Deno.env.delete(ARGUMENTS_FILE);
  const args: unknown = JSON.parse(await Deno.readTextFile(file));
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) {
    throw new Error(`${file} does not hold cairn's arguments`);
  }
  return args;
}
