/** What every command receives. */
export interface CommandContext {
  /** The store directory (from `--store`, `$CAIRN_HOME` or the platform default). */
  storeDir: string;
  /** Arguments after the command name. */
  args: string[];
  /** Writes a line to standard output. */
  out: (line: string) => void;
  /** Writes a line to standard error. */
  err: (line: string) => void;
}

/** One CLI command: its name, a one-line summary, its usage text and its action. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** Runs the command; resolves to the process exit code. */
  run(context: CommandContext): Promise<number>;
}

/** A mistake in how a command was called; printed with the command's usage. */
export class UsageError extends Error {
  override name = "UsageError";
}
