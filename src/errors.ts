/**
 * The errors a person or an agent can act on, and how a zod error is told in
 * words. Below every folder of `src`: ingest raises them on files it is
 * given, the service on requests, and the CLI and MCP answer them.
 * @module
 */
/** A request the user can fix: bad input, an unknown id. Shown as is, without a stack. */
export class UserError extends Error {
  override name = "UserError";
}

/** A mistake in how a command's words were written (the command line answers it with its usage). */
export class ArgumentsError extends UserError {
  override name = "ArgumentsError";
}

/** A request naming something the store does not hold: a memory id, a project. */
export class NotFoundError extends UserError {
  override name = "NotFoundError";
}

/** One zod issue, as much of it as the words need. */
interface Issue {
  path: PropertyKey[];
  message: string;
  code?: string;
  values?: readonly unknown[];
  keys?: readonly string[];
  input?: unknown;
  origin?: string;
  minimum?: unknown;
  maximum?: unknown;
  inclusive?: boolean;
}

/**
 * A zod error as one line a person can act on: `kind is one of decision,
 * fact or note, not "foo"; the query has 80000 characters; the limit is
 * 65536`. The CLI and MCP both say it so; `nameOf` names a field as the
 * caller wrote it (`--valid-from` on the command line).
 */
export function describeIssues(
  error: { issues: ReadonlyArray<Issue> },
  nameOf?: (key: string) => string,
): string {
  return error.issues.map((issue) => {
    const [first, ...rest] = issue.path.map(String);
    // A flag is named alone (`--relation`); a field keeps its place (`relations.0`).
    const where = first === undefined
      ? "input"
      : nameOf
      ? nameOf(first)
      : [first, ...rest].join(".");
    const given = typeof issue.input === "string" && issue.input.length <= 100
      ? `, not "${issue.input}"`
      : typeof issue.input === "number"
      ? `, not ${issue.input}`
      : "";
    if (issue.code === "unrecognized_keys" && issue.keys) {
      const keys = issue.keys.map((key) => `"${key}"`).join(", ");
      const noun = issue.keys.length === 1 ? "key" : "keys";
      return first === undefined ? `unknown ${noun} ${keys}` : `${where} has no ${noun} ${keys}`;
    }
    if (issue.code === "invalid_value" && issue.values && issue.values.length > 0) {
      const choice = issue.values.length > 2 ? "one of " : "";
      return `${where} is ${choice}${either(issue.values.map(String))}${given}`;
    }
    if (issue.code === "too_small" && issue.origin === "number") {
      const from = issue.inclusive === false ? "above" : "from";
      return `${where} takes a number ${from} ${issue.minimum}${given}`;
    }
    if (issue.code === "too_small" && issue.origin === "string") {
      return issue.minimum === 1
        ? `${where} is empty`
        : `${where} takes ${issue.minimum} characters at least`;
    }
    if (issue.code === "too_big" && issue.origin === "number") {
      const upTo = issue.inclusive === false ? "below" : "up to";
      return `${where} takes a number ${upTo} ${issue.maximum}${given}`;
    }
    if (issue.code === "too_big" && issue.origin === "string" && typeof issue.input === "string") {
      return `${where} has ${issue.input.length} characters; the limit is ${issue.maximum}`;
    }
    // A message that goes on from its field ("takes an ISO 8601 date") reads as one sentence.
    const joiner = /^(takes|must) /.test(issue.message) ? " " : ": ";
    return `${where}${joiner}${issue.message}${given}`;
  }).join("; ");
}

/** `a, b or c`. */
export function either(options: readonly string[]): string {
  return options.length < 2
    ? options.join("")
    : `${options.slice(0, -1).join(", ")} or ${options.at(-1)}`;
}
