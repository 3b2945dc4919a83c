import { parseArgs, type ParseArgsConfig } from "node:util";
import { parseDate } from "../service/dates.ts";
import { UsageError } from "./command.ts";

/** Parses a command's arguments strictly, turning parser errors into {@linkcode UsageError}s. */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: T,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
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
