/**
 * Claude Code transcript lines for tests: one JSON record per line, in the
 * shape Claude Code writes them.
 * @module
 */

/** The session id every line carries unless a test passes its own. */
export const SESSION = "5e55a0b1-0000-4000-8000-000000000001";

/** A `user` or `assistant` record at second `at` of a fixed minute. */
export function line(
  type: "user" | "assistant",
  content: unknown,
  cwd: string,
  at: number,
  session = SESSION,
): string {
  return JSON.stringify({
    type,
    sessionId: session,
    cwd,
    isSidechain: false,
    uuid: crypto.randomUUID(),
    timestamp: new Date(Date.UTC(2026, 1, 1, 10, 0, at)).toISOString(),
    message: { role: type, content },
  }) + "\n";
}

/** A user prompt. */
export const prompt = (text: string, cwd: string, at: number, session = SESSION) =>
  line("user", text, cwd, at, session);

/** An assistant text answer. */
export const answer = (text: string, cwd: string, at: number, session = SESSION) =>
  line("assistant", [{ type: "text", text }], cwd, at, session);

/** An assistant tool call. */
export const tool = (
  name: string,
  input: Record<string, unknown>,
  cwd: string,
  at: number,
  session = SESSION,
) => line("assistant", [{ type: "tool_use", id: `t${at}`, name, input }], cwd, at, session);

/** The record Claude Code writes where it compacted the context. */
export const compactBoundary = (cwd: string, at: number, session = SESSION) =>
  JSON.stringify({
    type: "system",
    subtype: "compact_boundary",
    sessionId: session,
    cwd,
    uuid: crypto.randomUUID(),
    timestamp: new Date(Date.UTC(2026, 1, 1, 10, 0, at)).toISOString(),
    content: "Conversation compacted",
  }) + "\n";
