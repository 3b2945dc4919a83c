/**
 * What the user said or decided within a Claude Code turn, read from the
 * records that carry it: the answers to the agent's questions
 * (AskUserQuestion), the approval or rejection of its plan (ExitPlanMode), the
 * reason given when rejecting a tool call, and messages typed while the agent
 * worked (queued commands). Each is one line of text that reads after "User ".
 * @module
 */
import { isObject, stringField } from "./entry.ts";

/** What a parser keeps of a tool call until its result: its name, and a plan's title. */
export interface PendingCall {
  name: string;
  plan?: string;
}

/** A tool call as a {@linkcode PendingCall}. */
export function pendingCall(name: string, input: Record<string, unknown>): PendingCall {
  const plan = name === "ExitPlanMode" ? planTitle(input.plan) : undefined;
  return plan ? { name, plan } : { name };
}

/** How Claude Code opens the result of a tool call the user rejected (its own or a sub-agent's). */
const REJECTED =
  /^(?:Error: )?(?:The user doesn't want to proceed with this tool use|Permission for this tool use was denied)/;
/** What precedes the reason the user typed when rejecting a tool call. */
const USER_SAID = /the user said:\n/i;
/** A hint Claude Code may append after the user's reason. */
const TRAILER = "\n\nNote: The user's next message";
/** The reason Claude Code writes itself when the user chose to talk about the questions instead. */
const CLARIFY = /^The user wants to clarify these questions\./;
/** How Claude Code opens the result of a plan the user approved. */
const APPROVED = /^User has approved (?:your plan|exiting plan mode)/;
/** How Claude Code opens the result of answered questions (older and newer wording). */
const ANSWERED = /^(?:User has answered your questions|Your questions have been answered):/;

/**
 * The user's words in one `tool_result` block of a user `record` whose call is
 * `call` (if it was seen): the answers to AskUserQuestion, the approval or
 * rejection of an ExitPlanMode plan, or the reason the user gave when
 * rejecting any other tool call.
 */
export function decisionsIn(
  block: Record<string, unknown>,
  record: Record<string, unknown>,
  call: PendingCall | undefined,
): string[] {
  const text = textOf(block.content).trim();
  const result = record.toolUseResult;
  const plan = quoted(call?.plan ?? planTitle(isObject(result) ? result.plan : undefined));
  if (block.is_error === true) {
    if (!REJECTED.test(text)) return [];
    const reason = rejectionReason(text, record);
    if (call?.name === "ExitPlanMode") {
      return [`rejected the plan${plan}${reason ? `: ${reason}` : ""}`];
    }
    return reason ? [`rejected ${call?.name ?? "a tool call"}: ${reason}`] : [];
  }
  if (APPROVED.test(text)) return [`approved the plan${plan}`];
  if (call?.name === "AskUserQuestion" || ANSWERED.test(text)) return answers(result, text);
  return [];
}

/**
 * The words of a message the user typed while the agent worked: an
 * `attachment` record's `queued_command` in prompt mode, from a person (no
 * origin, as older versions write it, or a human one; not a task notification,
 * another agent's message or a goal the harness sends again). The same words
 * are in a `queue-operation` record before it, which is not read: there they
 * also stand for messages that later arrive as prompts.
 */
export function queuedMessage(attachment: unknown): string | undefined {
  if (!isObject(attachment) || attachment.type !== "queued_command") return undefined;
  if (attachment.commandMode !== undefined && attachment.commandMode !== "prompt") return undefined;
  const origin = attachment.origin;
  if (origin !== undefined && !(isObject(origin) && (origin.kind ?? "human") === "human")) {
    return undefined;
  }
  return textOf(attachment.prompt).trim() || undefined;
}

/** A string content, or the text of a content array's blocks, one line each (empty for an image). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block) => stringField(block, "text") ?? "").join("\n");
}

/** The answers to AskUserQuestion: from the record's `toolUseResult`, else from the result's text. */
function answers(result: unknown, text: string): string[] {
  const structured = isObject(result) && isObject(result.answers) ? result.answers : undefined;
  const pairs: Array<[string, unknown]> = structured
    ? Object.entries(structured)
    : [...text.matchAll(/"([^"]+)"="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]);
  const notes = isObject(result) && isObject(result.annotations) ? result.annotations : {};
  return pairs.flatMap(([question, answer]) => {
    const chosen = (Array.isArray(answer) ? answer : [answer])
      .filter((a): a is string => typeof a === "string").join(", ").trim();
    const note = stringField(notes[question], "notes")?.trim();
    if (!chosen && !note) return [];
    return [`answered "${question}": ${chosen}${note ? ` (note: ${note})` : ""}`];
  });
}

/** What the user typed when rejecting a tool call, if anything. */
function rejectionReason(text: string, record: Record<string, unknown>): string | undefined {
  const feedback = stringField(record, "userFeedback")?.trim();
  if (feedback) return feedback;
  const at = text.search(USER_SAID);
  if (at === -1) return undefined;
  const reason = text.slice(at).replace(USER_SAID, "").split(TRAILER)[0]!.trim();
  return reason && !CLARIFY.test(reason) ? reason : undefined;
}

/** Characters of a plan's title kept. */
const TITLE_CHARS = 120;

/** A plan's first line without its heading marks, shortened at a word to {@linkcode TITLE_CHARS}. */
function planTitle(plan: unknown): string | undefined {
  if (typeof plan !== "string") return undefined;
  const first = plan.split("\n").map((line) => line.replace(/^#+\s*/, "").trim()).find(Boolean);
  if (!first || first.length <= TITLE_CHARS) return first;
  const cut = first.lastIndexOf(" ", TITLE_CHARS);
  return `${first.slice(0, cut > 0 ? cut : TITLE_CHARS)}…`;
}

function quoted(title: string | undefined): string {
  return title ? ` "${title}"` : "";
}
