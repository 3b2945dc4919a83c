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
  /**
   * Shows how far a long step is, `done` of the way when known (0 to 1):
   * redrawn on a terminal, an occasional line elsewhere.
   */
  progress: (text: string, done?: number) => void;
  /** The folder relative paths in `args` start from: the caller's, also when relayed. */
  cwd: string;
  /** The folders the caller may have read unattended (its `CAIRN_ALLOWED_ROOTS`), also when relayed. */
  roots: string[];
  /** The open store, when the command runs inside the process that owns it (`cairn serve`). */
  owner?: Cairn;
  /** Standard input as the caller sent it with a relayed command (`ingest --hook`). */
  stdin?: string;
}

/** Output sinks, injectable for tests. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  /**
   * Where a long command's progress goes; default a `ProgressLine`
   * on `err` (redrawn on a terminal when `err` is standard error).
   */
  progress?: (text: string, done?: number) => void;
}

/** Where a command runs when the store's owner runs it for a caller (see `owner_cli.ts`). */
export interface InOwner {
  owner: Cairn;
  cwd: string;
  roots: string[];
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
   * Checks the arguments without running anything: a command the owner runs
   * says what is wrong with them before an owner is started or asked.
   */
  check?(args: string[]): void;
  /**
   * Whether these arguments need a store that is there already (they read it,
   * check it or rebuild it): then a store folder that does not exist (a
   * mistyped `--store`) is refused before anything starts, rather than made.
   * Absent: the command may make the store.
   */
  needsStore?(args: string[]): boolean;
}

/** A mistake in how a command was called; printed with the command's usage. */
export class UsageError extends Error {
  override name = "UsageError";
}
