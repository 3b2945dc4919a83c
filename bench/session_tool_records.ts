/**
 * A corpus tool call (bench/session_corpus.ts) as Claude Code records it: the
 * assistant's `tool_use` input, and the user record with its `tool_result`
 * block and `toolUseResult`, in the wording Claude Code writes for answered
 * questions and for approved or rejected plans.
 * @module
 */
import { join } from "node:path";
import type { CorpusTool } from "./session_corpus.ts";

/** What a transcript holds of one tool call, apart from ids, times and session fields. */
export interface ToolRecords {
  /** The `tool_use` block's input. */
  input: Record<string, unknown>;
  /** The `tool_result` block, without its `tool_use_id`. */
  result: { content: string; is_error?: true };
  /** The user record's `toolUseResult`, if Claude Code writes one that matters here. */
  toolUseResult?: unknown;
}

/** Claude Code's answer to a tool call the user rejected, before the reason the user typed. */
const REJECTED_WITH_REASON =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was " +
  "a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n";

/** The records of `tool`, its paths made absolute under `cwd`. */
export function toolRecords(tool: CorpusTool, cwd: string): ToolRecords {
  switch (tool.name) {
    case "AskUserQuestion": {
      const pairs = Object.entries(tool.answers).map(([question, answer]) =>
        `"${question}"="${answer}"`
      );
      return {
        input: tool.input,
        result: {
          content: `User has answered your questions: ${pairs.join(", ")}. ` +
            "You can now continue with the user's answers in mind.",
        },
        toolUseResult: { questions: tool.input.questions, answers: tool.answers },
      };
    }
    case "ExitPlanMode": {
      const { plan } = tool.input;
      if (tool.rejected === undefined) {
        return {
          input: tool.input,
          result: {
            content: "User has approved your plan. You can now start coding. Start with updating " +
              `your todo list if applicable\n\n## Approved Plan:\n${plan}`,
          },
          toolUseResult: { plan, isAgent: false },
        };
      }
      const content = REJECTED_WITH_REASON + tool.rejected;
      return {
        input: tool.input,
        result: { content, is_error: true },
        toolUseResult: `Error: ${content}`,
      };
    }
    default:
      return {
        input: Object.fromEntries(
          Object.entries(tool.input).map(([key, value]) => [
            key,
            key === "file_path" ? join(cwd, value) : value,
          ]),
        ),
        result: { content: "ok" },
      };
  }
}
