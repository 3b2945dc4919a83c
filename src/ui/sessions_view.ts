/**
 * The web view's sessions page, as data: the sessions of a project, newest
 * first, a page at a time; and one session's turns in order, each with its
 * prompt, the files it touched and what the user decided during it (the
 * turn's "User …" lines: answers, approvals, rejections with their reasons).
 * @module
 */
import { z } from "zod";
import { sessionsByRecency, turnsOfSession } from "../../projections/graph/queries/sessions.ts";
import type { Cairn } from "../service/cairn.ts";

/** Sessions a page lists. */
const SESSIONS_PAGE = 30;
/** Turns of one session listed at most. */
const MAX_TURNS = 500;

const Input = z.object({
  project: z.string().min(1).max(200).optional(),
  session: z.string().min(1).max(200).optional(),
  offset: z.number().int().min(0).max(1_000_000).optional(),
}).strict();

/** One session in a project's timeline. */
export interface SessionEntry {
  session: string;
  project: string | null;
  first: string;
  last: string;
  turns: number;
}

/** One turn of a session. */
export interface TurnEntry {
  id: string;
  line: number;
  startedAt: string;
  prompt: string;
  files: string[];
  decisions: string[];
}

/** A page of sessions, or one session's turns when `session` is given. */
export async function sessionTimeline(
  cairn: Cairn,
  input: Record<string, unknown>,
): Promise<{ sessions: SessionEntry[]; more: boolean } | { turns: TurnEntry[]; more: boolean }> {
  const { project, session, offset = 0 } = Input.parse(input);
  const db = cairn.graph.database;
  if (session) {
    const rows = await turnsOfSession(db, session, MAX_TURNS + 1);
    const turns = rows.slice(0, MAX_TURNS).map((row) => {
      const text = cairn.text.text(`turn:${row.id}`) ?? "";
      const lines = text.split("\n").map((line) => line.trim()).filter(Boolean);
      return {
        id: row.id,
        line: row.line,
        startedAt: row.started_at,
        prompt: (lines[0] ?? "").slice(0, 300),
        files: [...new Set(row.files)].sort(),
        decisions: lines.filter((line) => line.startsWith("User ")).map((line) =>
          line.slice(0, 300)
        ),
      };
    });
    return { turns, more: rows.length > MAX_TURNS };
  }
  const rows = await sessionsByRecency(db, project ?? "", offset, SESSIONS_PAGE + 1);
  const sessions = rows.slice(0, SESSIONS_PAGE).map((row) => ({
    ...row,
    project: row.project || null,
  }));
  return { sessions, more: rows.length > SESSIONS_PAGE };
}
