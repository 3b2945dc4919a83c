/**
 * Reading a file named on the command line: a regular file only (a pipe or a
 * device would block or never end), with the path and the reason on failure.
 * @module
 */
import { resolve } from "node:path";
import { UserError } from "../errors.ts";

/** Largest file a command reads whole. */
const MAX_BYTES = 256 * 1024 * 1024;

/** The text of the regular file `file`, relative to `cwd`. */
export async function readTextArgument(cwd: string, file: string): Promise<string> {
  const path = resolve(cwd, file);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    throw new UserError(`cannot read ${file}: ${(error as Error).message}`);
  }
  if (!info.isFile) {
    throw new UserError(
      `${file} is not a regular file (a folder, a pipe or a device); give a file`,
    );
  }
  if (info.size > MAX_BYTES) {
    throw new UserError(`${file} has ${info.size} bytes; files up to ${MAX_BYTES} are read`);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(await Deno.readFile(path));
  } catch (error) {
    throw new UserError(`cannot read ${file}: ${(error as Error).message}`);
  }
}
