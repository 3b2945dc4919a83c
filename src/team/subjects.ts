/**
 * Subjects of a team's stream: one per shared project, `<prefix>.p.<project>`,
 * `<prefix>.global` for what belongs to no project, and `<prefix>.s.<project>`
 * for the sessions of a project that opts in (a subject of their own, so a
 * member that does not take sessions never reads them). A project name is
 * written so that any name is one subject token: letters, digits, `-` and `_`
 * stay, every other byte of its UTF-8 becomes `~` and two hex digits.
 * @module
 */

/** The subject of `project`'s knowledge (null: no project), or of its sessions, under `prefix`. */
export function subjectOf(
  prefix: string,
  project: string | null,
  what: "knowledge" | "sessions" = "knowledge",
): string {
  if (project === null) return `${prefix}.global`;
  let token = "";
  for (const byte of new TextEncoder().encode(project)) {
    const char = String.fromCharCode(byte);
    token += /[A-Za-z0-9_-]/.test(char) ? char : `~${byte.toString(16).padStart(2, "0")}`;
  }
  return `${prefix}.${what === "sessions" ? "s" : "p"}.${token}`;
}

/** Every subject of the stream under `prefix`, as the stream is created with. */
export function streamSubjects(prefix: string): string[] {
  return [`${prefix}.>`];
}
