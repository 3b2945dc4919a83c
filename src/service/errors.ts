/** A request the user can fix: bad input, an unknown id. Shown as is, without a stack. */
export class UserError extends Error {
  override name = "UserError";
}

/** One zod issue, as much of it as the words need. */
interface Issue {
  path: PropertyKey[];
  message: string;
  code?: string;
  values?: readonly unknown[];
  input?: unknown;
}

/**
 * A zod error as one line a person can act on: `kind is one of decision,
 * fact or note, not "foo"; content: Too big`. The CLI and MCP both say it so.
 */
export function describeIssues(error: { issues: ReadonlyArray<Issue> }): string {
  return error.issues.map((issue) => {
    const where = issue.path.map(String).join(".") || "input";
    if (issue.code === "invalid_value" && issue.values && issue.values.length > 0) {
      const given = typeof issue.input === "string" ? `, not "${issue.input}"` : "";
      return `${where} is one of ${either(issue.values.map(String))}${given}`;
    }
    return `${where}: ${issue.message}`;
  }).join("; ");
}

/** `a, b or c`. */
export function either(options: readonly string[]): string {
  return options.length < 2
    ? options.join("")
    : `${options.slice(0, -1).join(", ")} or ${options.at(-1)}`;
}
