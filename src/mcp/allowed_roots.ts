/**
 * The folders an agent may ask cairn to read (index_project): the user's home
 * by default, or `CAIRN_ALLOWED_ROOTS` (a path list, `:`-separated; `;` on
 * Windows); never `/` or a system folder, whatever the setting says.
 * @module
 */
import { delimiter, resolve, sep } from "node:path";
import { UserError } from "../service/errors.ts";

const SYSTEM = [
  "/",
  "/etc",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/var",
  "/proc",
  "/sys",
  "/dev",
  "/boot",
  "/root/.ssh",
];

/** The allowed roots, from the environment. */
export function allowedRoots(env: (name: string) => string | undefined = Deno.env.get): string[] {
  const listed = env("CAIRN_ALLOWED_ROOTS");
  const roots = listed
    ? listed.split(delimiter).filter(Boolean)
    : [env("HOME") ?? env("USERPROFILE") ?? ""];
  return roots.filter(Boolean).map((root) => resolve(root)).filter((root) =>
    !SYSTEM.includes(root)
  );
}

/** `path` made absolute, or a {@linkcode UserError} saying it is outside the allowed roots. */
export function checkAllowedPath(path: string, roots: readonly string[] = allowedRoots()): string {
  const target = resolve(path);
  const inside = roots.some((root) =>
    target === root || target.startsWith(root.endsWith(sep) ? root : root + sep)
  );
  if (!inside || SYSTEM.includes(target)) {
    throw new UserError(
      `${target} is outside the folders cairn may read (${roots.join(", ") || "none"}); ` +
        "set CAIRN_ALLOWED_ROOTS for the owner (`cairn serve`) to allow it",
    );
  }
  return target;
}
