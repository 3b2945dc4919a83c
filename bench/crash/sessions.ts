/**
 * Agent sessions: Claude Code transcript turns, and finding them with a words-only search.
 * @module
 */
import { join } from "node:path";
import { searchBatch } from "./checks.ts";
import type { Context } from "./context.ts";

/** One Claude Code transcript record, as Claude Code writes them. */
export function claudeLine(
  session: string,
  type: "user" | "assistant",
  content: unknown,
  cwd: string,
  at: number,
  uuid: string,
): string {
  return JSON.stringify({
    type,
    sessionId: session,
    cwd,
    isSidechain: false,
    uuid,
    timestamp: new Date(Date.UTC(2026, 1, 1, 10, 0, 0) + at * 1000).toISOString(),
    message: { role: type, content },
  }) + "\n";
}

/** A turn: a prompt naming `marker`, a Read tool call and an answer (3 lines). */
export function claudeTurn(ctx: Context, session: string, cwd: string, marker: string, at: number) {
  const uuid = () => ctx.rng.uuid();
  return claudeLine(session, "user", `please look at the ${marker} handler`, cwd, at, uuid()) +
    claudeLine(
      session,
      "assistant",
      [{
        type: "tool_use",
        id: `toolu_${at}`,
        name: "Read",
        input: { file_path: join(cwd, `${marker}.py`) },
      }],
      cwd,
      at + 1,
      uuid(),
    ) +
    claudeLine(
      session,
      "assistant",
      [{ type: "text", text: `The ${marker} handler retries twice and then gives up.` }],
      cwd,
      at + 2,
      uuid(),
    );
}

/** Which of the `[marker, turn id]` pairs a words-only search finds (by the turn's id). */
export async function findTurns(
  store: string,
  dir: string,
  turns: Array<{ marker: string; id: string }>,
): Promise<string[]> {
  const answers = await searchBatch(
    store,
    dir,
    turns.map((turn) => ({ id: turn.id, query: turn.marker, include: "sessions" })),
  );
  return turns.filter((turn) => !(answers.get(turn.id) ?? []).some((hit) => hit.id === turn.id))
    .map((turn) => `turn ${turn.id} ("${turn.marker}") is not found`);
}
