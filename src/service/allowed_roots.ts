/**
 * The folders cairn may read when it is not the user typing the path (an
 * agent's index_project, a hook's transcript, `cairn ingest --watch`): the
 * user's home by default, or `CAIRN_ALLOWED_ROOTS` (a path list,
 * `:`-separated; `;` on Windows); never `/`, a system folder or anything
 * inside one, whatever the setting says. Paths are compared as real paths,
 * symbolic links followed, so a link inside a root cannot lead out of it.
 * @module
 */
import { delimiter, resolve } from "node:path";
import { UserError } from "../errors.ts";
import { isWithin } from "./paths.ts";

/**
 * Folders never read, nor anything inside them. A root that itself lies inside
 * one (a home at `/var/home/ana` on Fedora Silverblue) still allows what it holds.
 */
const SYSTEM = [
  "/etc",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib64",
  "/var",
  "/proc",
  "/sys",
  "/dev",
  "/boot",
  "/root/.ssh",
];

/** Where the setting goes, for the owner of the store (the default of {@linkcode checkAllowedPath}). */
const FOR_THE_OWNER = "in the environment of the store's owner (`cairn serve`)";

/** The allowed roots, from the environment, made absolute; `/` and system folders left out. */
export function allowedRoots(env: (name: string) => string | undefined = Deno.env.get): string[] {
  const listed = env("CAIRN_ALLOWED_ROOTS");
  const roots = listed
    ? listed.split(delimiter).filter(Boolean)
    : [env("HOME") ?? env("USERPROFILE") ?? ""];
  return roots.filter(Boolean).map((root) => resolve(root)).filter((root) =>
    root !== resolve("/") && !SYSTEM.includes(root)
  );
}

/**
 * `path` made absolute (its links kept, so that it names what it named
 * before), or a {@linkcode UserError} when it does not exist, or its real path
 * lies outside every root or in a system folder. `where` says where to set
 * `CAIRN_ALLOWED_ROOTS` to allow it.
 *
 * @example
 * ```ts
 * checkAllowedPath("/home/ana/code/../repo", ["/home/ana"]); // "/home/ana/repo"
 * checkAllowedPath("/home/ana/link-to-etc", ["/home/ana"]); // throws: /etc is outside /home/ana
 * ```
 */
export function checkAllowedPath(
  path: string,
  roots: readonly string[] = allowedRoots(),
  where: string = FOR_THE_OWNER,
): string {
  const given = resolve(path);
  const target = realPath(given);
  if (target === undefined) throw new UserError(`no file or folder at ${given}`);
  const via = target === given ? "" : ` (where ${given} leads)`;
  const admitting = roots.flatMap((root) => realPath(root) ?? [])
    .filter((root) => root !== resolve("/") && isWithin(target, root));
  if (admitting.length === 0) {
    throw new UserError(
      `${target}${via} is outside the folders cairn may read (${roots.join(", ") || "none"}); ` +
        `to allow it, add a folder that holds it to CAIRN_ALLOWED_ROOTS ${where}`,
    );
  }
  const system = systemFolders().find((folder) =>
    isWithin(target, folder) && !admitting.some((root) => root !== folder && isWithin(root, folder))
  );
  if (system !== undefined) {
    throw new UserError(
      `${target}${via} is in the system folder ${system}, which cairn never reads; ` +
        "give a folder of your own",
    );
  }
  return given;
}

/** The system folders as written and as real paths (`/etc` is `/private/etc` on macOS). */
function systemFolders(): string[] {
  return [...new Set(SYSTEM.flatMap((folder) => [resolve(folder), realPath(folder) ?? []].flat()))];
}

function realPath(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}
