import { posix } from "node:path";

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

/** Extensions that make a bare word (`ingest.rs`, `package.json`) a file name. */
const EXTENSIONS = new Set(
  ("ts tsx mts cts js jsx mjs cjs json jsonc jsonl md mdx txt rst py pyi rs go java kt kts " +
    "scala c h cc cpp cxx hpp hh cs fs rb php pl sh bash zsh fish ps1 yml yaml toml ini cfg conf " +
    "lock html htm css scss sass less sql xml csv tsv env swift m mm lua vue svelte astro ipynb " +
    "gradle mod sum tf tfvars proto graphql gql dart ex exs erl hs ml r jl zig nix dockerfile " +
    "gitignore editorconfig patch diff wasm svg png jpg gif pdf").split(" "),
);
const BARE_FILES = new Set(["Makefile", "Dockerfile", "Justfile", "Rakefile", "Gemfile"]);

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
  const raw = [...text.matchAll(/(?:^|[\s(\[])@([^\s()\[\]'"`,;]+)/g)]
    .map((match) => match[1]!.replace(/[.:!?]+$/, ""))
    .filter(isPathLike);
  return unique(raw.map((path) => ({ ...normalise(path, place), tool: "prompt" })));
}

/** The words of a shell command that look like paths (`src/a.ts`, `./run.sh`, `Cargo.toml`). */
export function commandPaths(command: string): string[] {
  return command.split(/[\s;|&()<>`]+/)
    .map((word) => word.replace(/^["']+|["',:]+$/g, ""))
    .map((word) =>
      word.startsWith("-") && word.includes("=") ? word.slice(word.indexOf("=") + 1) : word
    )
    .filter((word) => !word.startsWith("-") && isPathLike(word));
}

/** The files an `apply_patch` adds, updates, deletes or moves. */
export function patchPaths(patch: string): string[] {
  return [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm)]
    .map((match) => (match[1] ?? match[2]!).trim());
}

/** True for a word that names a file or directory rather than a flag, URL, glob or variable. */
export function isPathLike(word: string): boolean {
  if (!word || word === "." || word === ".." || word === "/" || word === "~") return false;
  if (/:\/\/|[$*?{}=\\]|^\/(dev|proc)\//.test(word)) return false;
  if (!/^[\w.~\/@+-][\w.\/@+~-]*$/.test(word)) return false;
  if (word.includes("/")) return /[A-Za-z0-9_]/.test(word) && !/^@[\w-]+\/[\w.-]+$/.test(word);
  if (BARE_FILES.has(word)) return true;
  const dot = word.lastIndexOf(".");
  return dot > 0 && dot < word.length - 1 && EXTENSIONS.has(word.slice(dot + 1).toLowerCase()) ||
    dot === 0 && EXTENSIONS.has(word.slice(1).toLowerCase());
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
