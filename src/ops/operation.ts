/**
 * An operation is defined once: its zod input, what it does over an open
 * store, and how its result reads (text for people and agents, data for
 * programs). The CLI commands and the MCP tools of the operation table are
 * built from these definitions, so the two cannot drift apart.
 * @module
 */
import type { z } from "zod";
import type { Cairn } from "../service/cairn.ts";

/** Who asks: the folder relative paths start from, and the folders it may have read. */
export interface Caller {
  /** Absolute folder relative paths are resolved against. */
  cwd: string;
  /** Folders it may have read (see `src/service/allowed_roots.ts`). */
  roots: string[];
  /**
   * An agent (over MCP) may only have read what its roots hold; a person at
   * the CLI names any folder of theirs.
   */
  agent?: boolean;
  /** Where a long operation tells how far it is, `done` of the way when known (0 to 1). */
  progress?: (text: string, done?: number) => void;
}

/** An operation's answer, rendered. */
export interface Rendered {
  /** Compact markdown: what the CLI prints and an MCP tool answers. */
  text: string;
  /** The structured answer an MCP tool returns (matching its output schema). */
  data: Record<string, unknown>;
  /** What the CLI prints under `--json`, when it is not `data`. */
  json?: unknown;
  /**
   * Something asked for that was not there (`open` of a name the graph does
   * not have): the CLI says it on standard error and exits 1; MCP adds it as a note.
   */
  problem?: string;
}

/** One word (or the rest of the words) of a CLI command, filling an input key. */
export interface Positional {
  key: string;
  /** As the usage shows it: `ID`, `TEXT`. */
  name: string;
  /** Takes every word left, joined by spaces. */
  rest?: boolean;
  /** The usage error when it is missing; absent: it may be left out. */
  missing?: string;
}

/** How the CLI writes an operation's input, where it differs from `--key-in-kebab-case VALUE`. */
export interface CliForm {
  positionals?: Positional[];
  /** Flag names that are not the key in kebab case: `{ tags: "tag" }` (one per value). */
  flags?: Record<string, string>;
  /** List keys whose flag also takes comma-separated values: `--include memories,code`. */
  commas?: string[];
  /** Parsers of flag values written another way: a relation `A|r|B`, weights `a=1,b=2`. */
  parse?: Record<string, (text: string) => unknown>;
  /** What the usage calls a flag's value, where the default (`DATE`, the choices, …) is not right. */
  values?: Record<string, string>;
  /** Input keys only the CLI has (left out of the MCP tool). */
  cliOnly?: string[];
  /** Help lines after the usage line. */
  help?: string;
  /**
   * A command whose words do not map one to one onto the input (the graph's:
   * `relate FROM RELATION TO` is `{ relations: [{ from, relationType, to }] }`):
   * its own options, its usage after the command, and how its words make the
   * input (`read` reads a file argument, `-` standard input).
   */
  custom?: {
    words: string;
    options: Record<string, { type: "string" | "boolean"; multiple?: boolean }>;
    build(
      values: Record<string, unknown>,
      words: string[],
      read: (file: string) => Promise<string>,
    ): Promise<Record<string, unknown>>;
  };
}

/** One operation of the table. */
export interface Operation<Shape extends z.ZodRawShape = z.ZodRawShape, Result = unknown> {
  /**
   * The CLI command; absent when another command's form reaches it, which
   * `via` names (`get_index_status` is `index --status`).
   */
  command?: string;
  via?: string;
  /** The MCP tool; absent when only the CLI has it. */
  tool?: string;
  /** One line for `cairn --help`. */
  summary: string;
  /** What an agent reads in the tool list: when to use it, in a sentence or two. */
  description: string;
  /** Listed under `--tools core`. */
  core: boolean;
  /** Whether it writes to the store (in a store opened here, its vectors are computed before the command ends). */
  writes: boolean;
  input: Shape;
  output: z.ZodRawShape;
  cli?: CliForm;
  run(cairn: Cairn, input: z.output<z.ZodObject<Shape>>, caller: Caller): Promise<Result>;
  render(result: Result, input: z.output<z.ZodObject<Shape>>): Rendered;
}

/** An operation whose input and result types are no longer needed (a table's entries). */
// deno-lint-ignore no-explicit-any
export type AnyOperation = Operation<z.ZodRawShape, any>;

/** Defines an operation, checking `run` and `render` against its input. */
export function operation<Shape extends z.ZodRawShape, Result>(
  definition: Operation<Shape, Result>,
): Operation<Shape, Result> {
  return definition;
}
