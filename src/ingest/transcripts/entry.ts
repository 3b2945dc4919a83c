/**
 * What a transcript record means for cairn, whatever agent wrote it: the
 * Claude Code and Codex parsers both turn their records into these entries,
 * and `turns.ts` groups them into turns.
 */
export type Entry =
  /**
   * A prompt: it starts a turn. The user typed it, or, in a sub-agent's own
   * transcript (`subAgent`), the main agent gave it as the sub-agent's task.
   */
  | {
    kind: "prompt";
    line: number;
    offset: number;
    text: string;
    timestamp: string;
    cwd: string | null;
    subAgent: boolean;
  }
  /** Text the assistant wrote (a sub-agent's is kept only from its own transcript). */
  | { kind: "answer"; line: number; text: string }
  /** A tool call, by the agent or by a sub-agent within its turn (`sidechain`). */
  | {
    kind: "tool";
    line: number;
    id: string | null;
    name: string;
    input: Record<string, unknown>;
    sidechain: boolean;
  }
  /** The outcome of a tool call. */
  | { kind: "result"; line: number; toolId: string; error: boolean }
  /**
   * The user's words within a turn after its prompt: an answer to the agent's
   * question, a decision on its plan or on a tool call (with the reason given),
   * a message typed while it worked, what was said after interrupting it. The
   * text reads after "User ": `answered "Which host?": Render free tier`.
   */
  | { kind: "said"; line: number; text: string }
  /** The agent's context was compacted here: earlier turns left its context. */
  | { kind: "compact"; line: number }
  /** A summary the agent wrote of the conversation so far (not a user prompt). */
  | { kind: "summary"; line: number; text: string }
  /** The working directory changed (Codex states it apart from the prompt). */
  | { kind: "context"; line: number; cwd: string };

/** One line of a transcript file: its 0-based index, byte offset and text. */
export interface RawLine {
  index: number;
  offset: number;
  text: string;
}

/** How a parser understood one record. */
export interface Parsed {
  /** The record's type as the agent names it (`user`, `response_item`, ...). */
  type: string;
  /** `unknown` records are skipped and counted, never fatal. */
  known: boolean;
  entries: Entry[];
  /** The session id the record carries, if any. */
  session?: string;
}

/** A stateful reader of one transcript's records, in file order. */
export interface TranscriptParser {
  parse(record: unknown, line: RawLine): Parsed;
}

/** How a file is to be read. */
export interface ParserOptions {
  /** The file is a sub-agent's own transcript: its records are the sub-agent's, not asides. */
  subAgent?: boolean;
}

/** A transcript format: its agent's name and a fresh parser per file. */
export interface TranscriptFormat {
  agent: "claude" | "codex";
  newParser(options?: ParserOptions): TranscriptParser;
}

/** A JSON object's string field, or undefined. */
export function stringField(value: unknown, key: string): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const field = (value as Record<string, unknown>)[key];
  return typeof field === "string" ? field : undefined;
}

/** True for a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
