import { parseArgs, type ParseArgsConfig } from "node:util";
import { parseDate } from "../service/dates.ts";
import { UsageError } from "./command.ts";
import { didYouMean } from "../../text/did_you_mean.ts";

/**
 * Parses a command's arguments strictly, turning parser errors into
 * {@linkcode UsageError}s that name the option meant. One convention for
 * every command: `--json` and `--format json` say the same, whichever of the
 * two the command declares.
 */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: T,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args: sameFormat(args, options), options, allowPositionals, strict: true });
  } catch (error) {
    const message = (error as Error).message;
    const ambiguous = /Option '(-{1,2}[\w-]+)[^']*' argument is ambiguous/.exec(message)?.[1];
    if (ambiguous) {
      throw new UsageError(
        `${ambiguous} needs a value; one starting with a dash is written ${ambiguous}=-…`,
      );
    }
    const missing = /Option '(-{1,2}[\w-]+)[^']*' argument missing/.exec(message)?.[1];
    if (missing) throw new UsageError(`${missing} needs a value`);
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(message)?.[1];
    if (!unknown) throw new UsageError(message);
    const known = Object.keys(options).map((name) => `--${name}`);
    throw new UsageError(`unknown option ${unknown}${didYouMean(unknown, known)}`);
  }
}

/** `args` with `--json` as `--format json`, or `--format json` as `--json`, as the command takes it. */
function sameFormat(args: string[], options: NonNullable<ParseArgsConfig["options"]>): string[] {
  const takesJson = "json" in options;
  const takesFormat = "format" in options;
  if (takesJson === takesFormat) return args;
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") return [...out, ...args.slice(i)];
    if (takesFormat && arg === "--json") out.push("--format", "json");
    else if (takesJson && (arg === "--format" || arg.startsWith("--format="))) {
      const value = arg === "--format" ? args[++i] : arg.slice("--format=".length);
      if (value === "json") out.push("--json");
      else if (value !== "markdown" && value !== "text") {
        throw new UsageError(`--format is json or markdown, not "${value ?? ""}"`);
      }
    } else out.push(arg);
  }
  return out;
}

/** A `--limit` value: a whole number from 1; 10 when the option is absent. */
export function parseLimit(text: string | undefined): number {
  const limit = Number(text ?? 10);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new UsageError("--limit takes a whole number from 1");
  }
  return limit;
}

/** The value of a date option (`--as-of`, `--valid-at`), refused unless it names a moment. */
export function parseDateOption(text: string, option: string): string {
  if (parseDate(text) === undefined) {
    throw new UsageError(`${option} takes an ISO 8601 date, not "${text}"`);
  }
  return text;
}
