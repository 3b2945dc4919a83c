/**
 * The filters a code search takes, checked once for the CLI and MCP alike.
 * @module
 */
import { LANGUAGE_NAMES, languageNamed } from "../ingest/code/source_file.ts";
import { UserError } from "../errors.ts";

/** A `language` filter: one of the languages chunks are filed under, by any of its names. */
export function checkLanguage(name: string): string {
  const language = languageNamed(name);
  if (language === undefined) {
    throw new UserError(`language is one of ${LANGUAGE_NAMES.join(", ")}, not "${name}"`);
  }
  return language;
}

/** A `path` filter: a folder or file relative to the project's root, never outside it. */
export function checkPathPrefix(path: string): string {
  const parts = path.replaceAll("\\", "/").split("/").filter((part) => part !== "" && part !== ".");
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path) || parts.includes("..")) {
    throw new UserError(
      `path "${path}" must be relative to the project's root and stay inside it, like src/auth`,
    );
  }
  return parts.join("/");
}
