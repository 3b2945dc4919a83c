/**
 * The synthetic corpus of cairn's session benchmark (bench/sessions.ts), read
 * from bench/data/sessions/: about three months of coding-agent sessions on
 * one fictional project, "ledgerly", a small TypeScript invoicing web app,
 * written by hand for this benchmark and not taken from real transcripts.
 * Each session (one JSON file) works on one main task over a few turns
 * (prompt, tool calls, closing answer); some sessions were compacted part-way;
 * in some the agent asks the user (AskUserQuestion) or proposes a plan
 * (ExitPlanMode) and the user decides. The questions (questions.jsonl) have
 * known answering turns: `paraphrase` questions ask about what a turn decided
 * or found in other words than the turn uses; `file` questions name a file
 * and share no other content word with the answering turns, so only the
 * turns' touched files can find them; `in-context` questions are asked from a
 * compacted session about a topic its own post-compaction turns also cover,
 * which must be left out, so only the earlier answering turns (before the
 * compaction, or in older sessions) count; `decision` questions ask what the
 * user decided when the agent asked or proposed. Each question quotes, in
 * `gold_text`, the words of its gold turn that answer it.
 * @module
 */
import { z } from "zod";

/** A tool call that works on the project (paths relative to the project root). */
export interface CorpusWorkTool {
  name: "Read" | "Edit" | "Write" | "Bash" | "Grep" | "Glob";
  /** Read/Edit/Write: { file_path }, Bash: { command }, Grep: { pattern, path? }, Glob: { pattern } */
  input: Record<string, string>;
}
/** One question of an AskUserQuestion call, as Claude Code's tool input holds it. */
export interface CorpusAsked {
  question: string;
  header: string;
  options: Array<{ label: string; description: string }>;
  multiSelect: boolean;
}
/** The agent asks the user; `answers` holds, by question, the option chosen or the words typed. */
export interface CorpusAskTool {
  name: "AskUserQuestion";
  input: { questions: CorpusAsked[] };
  answers: Record<string, string>;
}
/** The agent proposes a plan; the user approves it, or rejects it saying why (`rejected`). */
export interface CorpusPlanTool {
  name: "ExitPlanMode";
  input: { plan: string };
  rejected?: string;
}
/** One tool call of a turn, as Claude Code records it. */
export type CorpusTool = CorpusWorkTool | CorpusAskTool | CorpusPlanTool;
/** One turn: the user's prompt, the agent's tool calls, its closing answer. */
export interface CorpusTurn {
  prompt: string;
  tools: CorpusTool[];
  answer: string;
}
/** One session; `compactAfter`: the agent's context was compacted after this turn index. */
export interface CorpusSession {
  id: string;
  startedAt: string;
  turns: CorpusTurn[];
  compactAfter?: number;
}
/** A question and the turns that answer it (`session` id, turn index). */
export interface CorpusQuestion {
  query: string;
  kind: "paraphrase" | "file" | "in-context" | "decision";
  gold: Array<{ session: string; turn: number }>;
  /** in-context questions: the session asking, whose turns after its compaction must not be returned */
  asking?: string;
  /** Words of a gold turn (its prompt, answer or the user's decision) that answer the question. */
  gold_text: string;
}

/** The fictional project's folder name. */
export const PROJECT = "ledgerly";

const DATA = new URL("./data/sessions/", import.meta.url);

const WorkTool = z.strictObject({
  name: z.enum(["Read", "Edit", "Write", "Bash", "Grep", "Glob"]),
  input: z.record(z.string(), z.string()),
});
const AskTool = z.strictObject({
  name: z.literal("AskUserQuestion"),
  input: z.strictObject({
    questions: z.array(z.strictObject({
      question: z.string(),
      header: z.string(),
      options: z.array(z.strictObject({ label: z.string(), description: z.string() })),
      multiSelect: z.boolean(),
    })),
  }),
  answers: z.record(z.string(), z.string()),
});
const PlanTool = z.strictObject({
  name: z.literal("ExitPlanMode"),
  input: z.strictObject({ plan: z.string() }),
  rejected: z.string().min(1).exactOptional(),
});
const Session = z.strictObject({
  id: z.string(),
  startedAt: z.iso.datetime(),
  turns: z.array(z.strictObject({
    prompt: z.string().min(1),
    tools: z.array(z.union([WorkTool, AskTool, PlanTool])),
    answer: z.string().min(1),
  })).min(1),
  compactAfter: z.int().min(0).exactOptional(),
});
const Question = z.strictObject({
  query: z.string().min(1),
  kind: z.enum(["paraphrase", "file", "in-context", "decision"]),
  gold: z.array(z.strictObject({ session: z.string(), turn: z.int().min(0) })).min(1),
  asking: z.string().exactOptional(),
  gold_text: z.string(),
});

/** Every session of bench/data/sessions/, in file name order. */
export const SESSIONS: CorpusSession[] = [...Deno.readDirSync(DATA)]
  .map((entry) => entry.name)
  .filter((name) => name.endsWith(".json"))
  .sort()
  .map((name) => parsed(Session, Deno.readTextFileSync(new URL(name, DATA)), name));

/** Every question of bench/data/sessions/questions.jsonl, each checked against its gold turns. */
export const QUESTIONS: CorpusQuestion[] = Deno.readTextFileSync(new URL("questions.jsonl", DATA))
  .split("\n")
  .flatMap((line, i) => line.trim() ? [checked(line, `questions.jsonl:${i + 1}`)] : []);

/** A question whose sessions and turns exist and whose `gold_text` quotes a gold turn. */
function checked(line: string, where: string): CorpusQuestion {
  const question = parsed(Question, line, where);
  const words = question.gold_text.split(/\s+/).length;
  if (words < 5 || words > 25) invalid(where, `gold_text has ${words} words, not 5-25`);
  const turns = question.gold.map(({ session, turn }) => {
    const found = SESSIONS.find((s) => s.id === session);
    if (!found) invalid(where, `no session ${session}`);
    return found.turns[turn] ?? invalid(where, `session ${session} has no turn ${turn}`);
  });
  if (question.asking && !SESSIONS.some((s) => s.id === question.asking)) {
    invalid(where, `no session ${question.asking}`);
  }
  if (!turns.some((turn) => turnWords(turn).some((text) => text.includes(question.gold_text)))) {
    invalid(where, "gold_text is in no gold turn's prompt, answer or decision");
  }
  return question;
}

/** What a turn says: the prompt, the answer, and the user's answers and reasons for rejecting. */
function turnWords(turn: CorpusTurn): string[] {
  const decisions = turn.tools.flatMap((tool) =>
    tool.name === "AskUserQuestion"
      ? Object.values(tool.answers)
      : tool.name === "ExitPlanMode" && tool.rejected
      ? [tool.rejected]
      : []
  );
  return [turn.prompt, turn.answer, ...decisions];
}

/** `text` parsed as JSON and checked against `schema`. */
function parsed<T>(schema: z.ZodType<T>, text: string, where: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    invalid(where, `not JSON: ${(error as Error).message}`);
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const first = result.error.issues[0]!;
  invalid(where, `${first.path.join(".")}: ${first.message}`);
}

function invalid(where: string, message: string): never {
  throw new Error(`bench/data/sessions/${where}: ${message}`);
}
