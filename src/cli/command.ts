import type { Cairn } from "../service/cairn.ts";

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
  /** The folder relative paths in `args` start from: the caller's, also when relayed. */
  cwd: string;
  /** The folders the caller may have read unattended (its `CAIRN_ALLOWED_ROOTS`), also when relayed. */
  roots: string[];
  /** The open store, when the command runs inside the process that owns it (`cairn serve`). */
  owner?: Cairn;
  /** Standard input as the caller sent it with a relayed command (`ingest --hook`). */
  stdin?: string;
}

/** One CLI command: its name, a one-line summary, its usage text and its action. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** Runs the command; resolves to the process exit code. */
  run(context: CommandContext): Promise<number>;
  /**
   * When a `cairn serve` owns the store, the command is sent to it and runs
   * there (see `owner_cli.ts`); commands without this need the store to themselves.
   */
  relayed?: boolean;
}

/** A mistake in how a command was called; printed with the command's usage. */
export class UsageError extends Error {
  override name = "UsageError";
}
