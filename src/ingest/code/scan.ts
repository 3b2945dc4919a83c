import { join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";

/** Files larger than this are skipped. */
export const MAX_FILE_BYTES = 1024 * 1024;

/** Folders never entered: dependencies, builds, caches, version control. */
export const SKIPPED_DIRS = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  "bower_components",
  "dist",
  "build",
  "target",
  "vendor",
  "out",
  "coverage",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".next",
  ".nuxt",
  ".gradle",
  ".idea",
  ".cache",
  ".terraform",
  ".deno",
  "site-packages",
  // Credentials by folder: keys, key rings, cloud and cluster logins, password stores.
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".kube",
  ".password-store",
  ".terraform.d",
]);

const LOCK_FILES = new Set([
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lockb",
  "deno.lock",
  "cargo.lock",
  "poetry.lock",
  "pipfile.lock",
  "uv.lock",
  "gemfile.lock",
  "composer.lock",
  "go.sum",
  "packages.lock.json",
]);

const SECRET = [
  /^\.env(\..*)?$/,
  /\.(pem|key|p12|pfx|jks|keystore|crt|cer|der|asc|gpg|kdbx|tfstate|tfstate\.backup)$/,
  /^id_(rsa|dsa|ecdsa|ed25519)/,
  /^(credentials|secrets?)(\.[a-z]+)?$/,
  /^\.(netrc|npmrc|pypirc|pgpass|htpasswd|git-credentials|my\.cnf|s3cfg|boto|vault-token)$/,
  /^service[-_]account.*\.json$/,
  // Shell and REPL histories: commands typed with tokens in them.
  /^\.[a-z]*_history$/,
  /^(fish_history|\.lesshst|\.viminfo)$/,
  // Password databases of a system.
  /^(shadow|gshadow|master\.passwd)-?$/,
];
/** Secrets known by where they live (relative path, lower case). */
const SECRET_PATHS = [
  /(^|\/)\.docker\/config\.json$/,
  /(^|\/)\.config\/gh\/hosts\.yml$/,
  /(^|\/)\.kube\/config$/,
  /(^|\/)\.terraform\.d\/credentials\.tfrc\.json$/,
  /(^|\/)\.config\/gcloud\//,
];
const GENERATED = [/\.min\.(js|css|mjs)$/, /\.(map|bundle\.js|pb\.go|lock)$/, /_pb2\.py$/];
/** Data and media by name: never worth reading. */
const BINARY_NAMES =
  /\.(png|jpe?g|gif|bmp|ico|webp|pdf|zip|gz|tgz|bz2|xz|7z|jar|war|class|so|dylib|dll|exe|o|a|wasm|pyc|woff2?|ttf|otf|eot|mp[34]|mov|avi|sqlite|db|bin|onnx|pt|npy|npz|parquet)$/;
const IGNORE_FILES = [".gitignore", ".ignore", ".cairnignore", ".memoryignore"];

/** A file the scan found worth reading. */
export interface ScannedFile {
  /** Path relative to the root, with `/`. */
  path: string;
  /** Absolute path to read it from. */
  absolute: string;
  size: number;
  mtimeMs: number;
}

/** A file or folder the scan left out, and why. */
export interface SkippedFile {
  path: string;
  reason: string;
}

/** What else a scan leaves out. */
export interface ScanOptions {
  /** Folders never entered, wherever they are (cairn's own store). */
  skip?: readonly string[];
}

/** Everything a scan found. */
export interface ScanResult {
  files: ScannedFile[];
  skipped: SkippedFile[];
}

interface Rules {
  /** The folder the rules' patterns are relative to, relative to the root ("" for the root). */
  base: string;
  matcher: Ignore;
}

/**
 * Walks `dir` (inside `root`) and lists the files to index, paths relative
 * to `root`. Honours `.gitignore`, `.ignore`, `.cairnignore` and
 * `.memoryignore` at every level (and `.git/info/exclude`); leaves out
 * dependency and build folders, lock files, minified and generated files,
 * binaries by name, files over {@linkcode MAX_FILE_BYTES} and secrets;
 * follows symbolic links only when they stay inside the root, each folder
 * once. Folders that cannot be read (or vanish) are skipped with the reason,
 * and those in `options.skip` without one.
 */
export async function scan(
  root: string,
  dir = root,
  options: ScanOptions = {},
): Promise<ScanResult> {
  const realRoot = await Deno.realPath(root);
  const result: ScanResult = { files: [], skipped: [] };
  // A folder already visited is not entered again: the skipped ones count as visited.
  const skip = await Promise.all(
    (options.skip ?? []).map((path) => Deno.realPath(path).catch(() => path)),
  );
  const visited = new Set<string>(skip);
  const rules: Rules[] = [];
  const exclude = await readIgnore(join(root, ".git", "info", "exclude"));
  if (exclude) rules.push({ base: "", matcher: ignore().add(exclude) });
  // Rules of the folders between the root and `dir` apply too.
  const top = relative(root, dir).split(sep).filter(Boolean);
  for (let depth = 0; depth < top.length; depth++) {
    await addRules(rules, root, top.slice(0, depth).join("/"));
  }
  await walk(root, realRoot, top.join("/"), rules, visited, result);
  return result;
}

async function walk(
  root: string,
  realRoot: string,
  dir: string,
  inherited: Rules[],
  visited: Set<string>,
  result: ScanResult,
): Promise<void> {
  const absolute = join(root, dir);
  let real: string;
  let entries: Deno.DirEntry[];
  try {
    real = await Deno.realPath(absolute);
    if (visited.has(real)) return;
    visited.add(real);
    entries = await Array.fromAsync(Deno.readDir(absolute));
  } catch (error) {
    result.skipped.push({ path: dir || ".", reason: `folder unreadable (${errorName(error)})` });
    return;
  }
  const rules = [...inherited];
  await addRules(rules, root, dir);
  entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  for (const entry of entries) {
    // A linked worktree's or a submodule's `.git` is a file naming where its repository is.
    if (entry.name === ".git") continue;
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    let isDirectory = entry.isDirectory;
    let isFile = entry.isFile;
    if (entry.isSymlink) {
      const target = await Deno.realPath(join(root, path)).catch(() => undefined);
      if (!target) {
        result.skipped.push({ path, reason: "broken symbolic link" });
        continue;
      }
      if (target !== realRoot && !target.startsWith(realRoot + sep)) {
        result.skipped.push({ path, reason: "symbolic link out of the root" });
        continue;
      }
      const stat = await Deno.stat(target).catch(() => undefined);
      isDirectory = stat?.isDirectory ?? false;
      isFile = stat?.isFile ?? false;
    }
    if (isDirectory) {
      if (SKIPPED_DIRS.has(entry.name)) continue;
      if (ignored(rules, `${path}/`)) continue;
      await walk(root, realRoot, path, rules, visited, result);
      continue;
    }
    if (!isFile || ignored(rules, path)) continue;
    // Deno names files by strings: bytes that are not UTF-8 arrive as U+FFFD, a name no open finds.
    if (entry.name.includes("\uFFFD")) {
      result.skipped.push({ path, reason: "file name is not UTF-8" });
      continue;
    }
    const reason = skipByName(entry.name) ??
      (SECRET_PATHS.some((pattern) => pattern.test(path.toLowerCase()))
        ? "may hold secrets"
        : undefined);
    if (reason) {
      result.skipped.push({ path, reason });
      continue;
    }
    let stat: Deno.FileInfo;
    try {
      stat = await Deno.stat(join(root, path));
    } catch (error) {
      result.skipped.push({ path, reason: `unreadable (${errorName(error)})` });
      continue;
    }
    if (stat.size > MAX_FILE_BYTES) {
      result.skipped.push({ path, reason: "over 1 MiB" });
      continue;
    }
    result.files.push({
      path,
      absolute: join(root, path),
      size: stat.size,
      mtimeMs: stat.mtime?.getTime() ?? 0,
    });
  }
}

/** Why a file is left out by its name alone, or undefined when it is not. */
export function skipByName(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (SECRET.some((pattern) => pattern.test(lower))) return "may hold secrets";
  if (LOCK_FILES.has(lower)) return "lock file";
  if (GENERATED.some((pattern) => pattern.test(lower))) return "minified or generated";
  if (BINARY_NAMES.test(lower)) return "binary";
  return undefined;
}

/** A file's text, or why it is not indexed: binary, not UTF-8, minified, generated, unreadable. */
export async function readSource(
  file: ScannedFile,
): Promise<{ text: string; bytes: Uint8Array } | { reason: string }> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(file.absolute);
  } catch (error) {
    return { reason: `unreadable (${errorName(error)})` };
  }
  if (bytes.length > MAX_FILE_BYTES) return { reason: "over 1 MiB" };
  if (bytes.subarray(0, 8192).includes(0)) return { reason: "binary" };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { reason: "not UTF-8" };
  }
  if (looksMinified(text)) return { reason: "minified or generated" };
  if (/@generated|Code generated .* DO NOT EDIT|<auto-generated/.test(text.slice(0, 1024))) {
    return { reason: "minified or generated" };
  }
  return { text, bytes };
}

function looksMinified(text: string): boolean {
  if (text.length < 2000) return false;
  const lines = text.split("\n");
  return text.length / lines.length > 300 || lines.some((line) => line.length > 10_000);
}

async function addRules(rules: Rules[], root: string, dir: string): Promise<void> {
  const texts = await Promise.all(IGNORE_FILES.map((name) => readIgnore(join(root, dir, name))));
  const text = texts.filter(Boolean).join("\n");
  if (text) rules.push({ base: dir, matcher: ignore().add(text) });
}

async function readIgnore(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

function ignored(rules: readonly Rules[], path: string): boolean {
  return rules.some((rule) => {
    if (rule.base && !path.startsWith(`${rule.base}/`)) return false;
    const inner = rule.base ? path.slice(rule.base.length + 1) : path;
    return inner !== "" && rule.matcher.ignores(inner);
  });
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : String(error);
}
