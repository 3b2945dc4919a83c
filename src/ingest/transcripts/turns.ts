import type { Entry } from "./entry.ts";
import { type Mention, normalise, type Place, promptMentions, toolMentions } from "./mentions.ts";
import { dropPrivate } from "../redact.ts";

/** A tool call within a turn, with whether it failed. */
export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
  sidechain: boolean;
  failed: boolean;
}

/** One turn: a user prompt, and what the assistant said and did until the next prompt. */
export interface Turn {
  /** Line index of the prompt in its transcript: the turn's key within its session. */
  line: number;
  /** Byte offset of the prompt's line. */
  offset: number;
  startedAt: string;
  cwd: string | null;
  prompt: string;
  /** The prompt is a sub-agent's task, from its own transcript, not the user's words. */
  subAgent: boolean;
  /**
   * What the user said within the turn after the prompt, in order, each
   * reading after "User " (answers, decisions on plans and tool calls,
   * messages typed while the agent worked, corrections after interrupting it).
   */
  said: string[];
  /** Answers and tool calls, in order. */
  steps: Array<{ answer: string } | { tool: ToolCall }>;
  /**
   * Lines of the compact boundaries met after the prompt and before the next
   * one: from there on, the agent's context held only a summary of what came before.
   */
  compactions: number[];
}

/** Turns grouped from entries, with what fell outside any turn. */
export interface Grouped {
  turns: Turn[];
  /** Lines where the agent's context was compacted (each also in its turn, if it has one). */
  compactions: number[];
  /** Entries before the first prompt (the tail of a turn read earlier, or none). */
  orphans: number;
}

/**
 * Groups entries into turns: each prompt opens one, and every answer, tool
 * call and word the user said up to the next prompt belongs to it (a
 * sub-agent's tool calls count for the turn that started it; a compaction
 * does not end a turn).
 */
export function groupTurns(entries: readonly Entry[], cwd: string | null = null): Grouped {
  const turns: Turn[] = [];
  const compactions: number[] = [];
  const calls = new Map<string, ToolCall>();
  let orphans = 0;
  let current: Turn | undefined;
  for (const entry of entries) {
    switch (entry.kind) {
      case "prompt":
        current = {
          line: entry.line,
          offset: entry.offset,
          startedAt: entry.timestamp,
          cwd: entry.cwd ?? cwd,
          prompt: entry.text,
          subAgent: entry.subAgent,
          said: [],
          steps: [],
          compactions: [],
        };
        turns.push(current);
        continue;
      case "context":
        cwd = entry.cwd;
        if (current && current.cwd === null) current.cwd = entry.cwd;
        continue;
      case "compact":
        compactions.push(entry.line);
        current?.compactions.push(entry.line);
        continue;
      case "summary":
        continue;
    }
    if (!current) {
      orphans++;
      continue;
    }
    if (entry.kind === "said") current.said.push(entry.text);
    else if (entry.kind === "answer") current.steps.push({ answer: entry.text });
    else if (entry.kind === "tool") {
      const call = {
        name: entry.name,
        input: entry.input,
        sidechain: entry.sidechain,
        failed: false,
      };
      if (entry.id) calls.set(entry.id, call);
      current.steps.push({ tool: call });
    } else if (entry.kind === "result" && entry.error) {
      const call = calls.get(entry.toolId);
      if (call) call.failed = true;
    }
  }
  return { turns, compactions, orphans };
}

/**
 * The most of a turn's text that is kept, stored and indexed: its beginning
 * and its end, with what was between them left out and counted. A runaway
 * answer (a pasted log of hundreds of megabytes) then costs no more than a
 * long turn, and no search meets a text of that size.
 */
export const MAX_TURN_CHARS = 128 * 1024;

/**
 * A turn as text: `User: …` (a sub-agent's: `Sub-agent task: …`), then what
 * the user said after it, one line each (`User answered "Which host?": Render`),
 * so the user's words lead the turn whatever follows; then each answer as
 * `Assistant: …` and each tool call as one line (`→ Read src/a.ts`,
 * `→ Bash: npm test`), at most {@linkcode MAX_TURN_CHARS} of it. Not yet redacted.
 */
export function turnText(turn: Turn, place: Place): string {
  const lines = [
    `${turn.subAgent ? "Sub-agent task" : "User"}: ${dropPrivate(turn.prompt).trim()}`,
    ...turn.said.map((said) => `User ${dropPrivate(said).trim()}`),
  ];
  for (const step of turn.steps) {
    if ("answer" in step) lines.push(`Assistant: ${step.answer}`);
    else lines.push(`→ ${toolSummary(step.tool, place)}`);
  }
  return capped(lines.join("\n"), MAX_TURN_CHARS);
}

/**
 * `text` if it fits in `max` characters, else about its first three quarters
 * and last quarter of that, each cut at a space so that no word (no secret
 * the redaction must recognise whole) is split.
 */
function capped(text: string, max: number): string {
  if (text.length <= max) return text;
  const headEnd = wordBoundary(text, Math.floor(max * 0.75), -1);
  const tailStart = wordBoundary(text, text.length - (max - Math.floor(max * 0.75)), 1);
  const left = tailStart - headEnd;
  return `${text.slice(0, headEnd)}\n[… ${left} characters left out …]\n${text.slice(tailStart)}`;
}

/** The nearest white space to `at` in direction `step` (within 1,000 characters), else `at`. */
function wordBoundary(text: string, at: number, step: 1 | -1): number {
  for (let i = at, seen = 0; i > 0 && i < text.length && seen < 1000; i += step, seen++) {
    if (/\s/.test(text[i]!)) return i;
  }
  return at;
}

/** The files a turn touched: its tools' paths and the `@file` mentions of the user's words. */
export function turnMentions(turn: Turn, place: Place, clean: (text: string) => string): Mention[] {
  const mentions = [turn.prompt, ...turn.said].flatMap((text) =>
    promptMentions(dropPrivate(text), place)
  );
  for (const step of turn.steps) {
    if (!("tool" in step)) continue;
    const { name, input } = step.tool;
    const command = typeof input.command === "string" ? clean(input.command) : undefined;
    mentions.push(
      ...toolMentions(name, command === undefined ? input : { ...input, command }, place),
    );
  }
  const seen = new Set<string>();
  return mentions.filter((m) => {
    const key = `${m.tool}\0${m.path}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

/** One line for a tool call: `Read src/a.ts`, `Bash: npm test`, `Grep "retry" in src`. */
export function toolSummary(call: ToolCall, place: Place): string {
  const { name, input } = call;
  const str = (key: string) => typeof input[key] === "string" ? (input[key] as string).trim() : "";
  const path = (key: string) => str(key) ? normalise(str(key), place).path : "";
  const within = path("path") ? ` in ${path("path")}` : "";
  let summary: string;
  if (str("file_path") || str("notebook_path")) {
    summary = `${name} ${path("file_path") || path("notebook_path")}`;
  } else if (typeof input.command === "string") {
    summary = `${name}: ${oneLine(input.command, 200)}`;
  } else if (typeof input.patch === "string") {
    const files = [...input.patch.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$/gm)]
      .map((m) => `${m[1]} ${normalise(m[2]!.trim(), place).path}`);
    summary = `${name}: ${files.join(", ") || "patch"}`;
  } else if (name === "Grep") summary = `Grep "${oneLine(str("pattern"), 80)}"${within}`;
  else if (name === "Glob") summary = `Glob ${str("pattern")}${within}`;
  else if (name === "TodoWrite" && Array.isArray(input.todos)) {
    summary = `TodoWrite (${input.todos.length} items)`;
  } else if (str("path")) summary = `${name} ${path("path")}`;
  else {
    const first = Object.values(input).find((value) => typeof value === "string") as
      | string
      | undefined;
    summary = first ? `${name}: ${oneLine(first, 120)}` : name;
  }
  return `${call.sidechain ? "sub-agent " : ""}${summary}${call.failed ? " (failed)" : ""}`;
}

function oneLine(text: string, max: number): string {
  const line = text.trim().split("\n")[0]!;
  const more = line.length > max || text.trim().includes("\n");
  return more ? `${line.slice(0, max)}…` : line;
}
