/** A request the user can fix: bad input, an unknown id. Shown as is, without a stack. */
export class UserError extends Error {
  override name = "UserError";
}

/** A zod error as one line: `content: Invalid input; kind: Invalid option`. */
export function describeIssues(
  error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> },
): string {
  return error.issues
    .map((issue) => `${issue.path.map(String).join(".") || "input"}: ${issue.message}`)
    .join("; ");
}
