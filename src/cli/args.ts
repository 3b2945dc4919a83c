import { parseArgs, type ParseArgsConfig } from "node:util";
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
