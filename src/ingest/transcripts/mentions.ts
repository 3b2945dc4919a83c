import { posix } from "node:path";
import { commandPaths, patchPaths, promptPaths } from "../../../text/code_mentions.ts";

/** A file a turn touched: relative to the project root when inside it, with the absolute path. */
export interface Mention {
  path: string;
  absolute?: string;
  tool: string;
}

/** Where a turn ran: its working directory and the project root paths are made relative to. */
export interface Place {
  cwd: string | null;
  root: string | null;
}

const SHELL_TOOLS = new Set(["Bash", "shell", "local_shell", "exec_command", "shell_command"]);
const PATH_KEYS = ["file_path", "notebook_path", "path"];

/**
 * The files a tool call names: `file_path` / `notebook_path` / `path` inputs
 * (Read, Edit, Write, MultiEdit, NotebookEdit, Grep, Glob, LS and the like),
 * path-like words of shell commands, and the files of an `apply_patch`.
 */
export function toolMentions(
  name: string,
  input: Record<string, unknown>,
  place: Place,
): Mention[] {
  const raw: string[] = [];
  for (const key of PATH_KEYS) {
    const value = input[key];
    if (typeof value === "string" && value.trim()) raw.push(value.trim());
  }
  const command = input.command;
  if (SHELL_TOOLS.has(name) && typeof command === "string") raw.push(...commandPaths(command));
  if (typeof input.patch === "string") raw.push(...patchPaths(input.patch));
  return unique(raw.map((path) => ({ ...normalise(path, place), tool: name })))
    .filter((mention) => mention.path !== ".");
}

/** Files named as `@path` in a prompt, stored with tool `prompt`. */
export function promptMentions(text: string, place: Place): Mention[] {
  return unique(promptPaths(text).map((path) => ({ ...normalise(path, place), tool: "prompt" })));
}

/** A path relative to the project root when inside it (absolute otherwise), and its absolute form. */
export function normalise(raw: string, place: Place): { path: string; absolute?: string } {
  if (raw.startsWith("~")) return { path: raw };
  const base = place.cwd ?? place.root;
  if (!base && !posix.isAbsolute(raw)) return { path: posix.normalize(raw) };
  const absolute = posix.resolve(base ?? "/", raw);
  const root = place.root ?? place.cwd;
  if (!root) return { path: absolute, absolute };
  const relative = posix.relative(root, absolute);
  if (relative === "") return { path: ".", absolute };
  if (relative.startsWith("..") || posix.isAbsolute(relative)) return { path: absolute, absolute };
  return { path: relative, absolute };
}

function unique(mentions: Mention[]): Mention[] {
  const seen = new Set<string>();
  return mentions.filter((mention) => {
    const key = `${mention.tool}\0${mention.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
