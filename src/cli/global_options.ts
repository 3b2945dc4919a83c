/**
 * What every command line starts with: the options before the command
 * (`--store DIR`, `--no-owner`, `--help`), which commands the store's owner
 * runs, and whether a command reads its standard input. Kept free of the
 * store's modules: a command sent to a running owner loads nothing more.
 * @module
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { defaultStoreDir } from "../service/paths.ts";
import { callerFolder } from "./caller_folder.ts";
import { didYouMean } from "../../text/did_you_mean.ts";

/** The commands the store's owner runs (started when none runs); the others need the store to themselves, or no store. */
export const OWNED_COMMANDS: ReadonlySet<string> = new Set([
  "recall",
  "search",
  "search-text",
  "search-code",
  "open",
  "history",
  "remember",
  "revise",
  "forget",
  "list",
  "get",
  "graph",
  "import",
  "index",
  "projects",
  "delete-project",
  "ingest",
  "status",
  "reembed",
  "sync",
]);

/** Whether the owner runs `args` of command `name` (`--watch` stays in the caller's process). */
export function runByOwner(name: string, args: readonly string[]): boolean {
  return OWNED_COMMANDS.has(name) && !args.includes("--watch");
}

/** Whether this process's environment leaves owners unstarted (`CAIRN_NO_OWNER=1`). */
export function ownerDisabledByEnv(): boolean {
  const value = Deno.env.get("CAIRN_NO_OWNER") ?? "";
  return value !== "" && value !== "0" && value.toLowerCase() !== "false";
}

/** The options before the command, and the rest: the command and its arguments. */
export interface GlobalOptions {
  /** Absolute: a relative `--store` or `CAIRN_HOME` starts in the folder the command was typed in. */
  storeDir: string;
  /** Whether `--store` named the store (rather than `$CAIRN_HOME` or the default). */
  storeGiven: boolean;
  help: boolean;
  version: boolean;
  noOwner: boolean;
  rest: string[];
}

/** A mistake in the options before the command. */
export class GlobalOptionError extends Error {
  override name = "GlobalOptionError";
}

const GLOBAL_OPTIONS = {
  store: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
  "no-owner": { type: "boolean" },
} as const;

/** Splits `argv` into the options before the command and the rest. */
export function splitGlobal(
  argv: string[],
): GlobalOptions | GlobalOptionError {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: GLOBAL_OPTIONS,
      allowPositionals: true,
      strict: false,
      tokens: true,
    });
  } catch (error) {
    return new GlobalOptionError((error as Error).message);
  }
  const firstPositional = parsed.tokens.find((token) => token.kind === "positional");
  const cut = firstPositional?.index ?? argv.length;
  const globals = parseArgs({ args: argv.slice(0, cut), options: GLOBAL_OPTIONS, strict: false });
  const unknown = Object.keys(globals.values).filter((key) => !(key in GLOBAL_OPTIONS));
  if (unknown.length > 0) {
    const known = Object.keys(GLOBAL_OPTIONS).map((name) => `--${name}`);
    return new GlobalOptionError(
      `unknown option --${unknown[0]} before the command${didYouMean(`--${unknown[0]}`, known)}`,
    );
  }
  if (globals.values.store === true || globals.values.store === "") {
    return new GlobalOptionError("--store needs a directory");
  }
  return {
    storeDir: resolve(
      callerFolder(),
      typeof globals.values.store === "string" ? globals.values.store : defaultStoreDir(),
    ),
    storeGiven: typeof globals.values.store === "string",
    help: globals.values.help === true,
    version: globals.values.version === true,
    noOwner: globals.values["no-owner"] === true,
    rest: argv.slice(cut),
  };
}

/**
 * The first of cairn's own options (`--store`, `--no-owner`) given after the
 * command, where they are not read: `cairn recall X --no-owner`.
 */
export function misplacedGlobal(args: readonly string[]): string | undefined {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).find((arg) =>
    arg === "--no-owner" || arg === "--store" || arg.startsWith("--store=")
  )?.split("=")[0];
}

/** Whether a command reads its standard input: a hook's JSON, `--file -`, or a lone `-` (`import -`, `recall -`). */
export function readsStdin(args: readonly string[]): boolean {
  return args.includes("--hook") || args.includes("-") || args.includes("--file=-");
}
