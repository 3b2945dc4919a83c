import {
  type Entry,
  isObject,
  type Parsed,
  type RawLine,
  stringField,
  type TranscriptFormat,
  type TranscriptParser,
} from "./entry.ts";

/** Items a Codex rollout may hold at top level in its older, unwrapped form. */
const ITEM_TYPES = new Set([
  "message",
  "function_call",
  "function_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "local_shell_call",
  "reasoning",
]);

/** User messages Codex writes itself: instructions and environment, not prompts. */
const BOILERPLATE = /^\s*(<environment_context>|<user_instructions>|<permissions|# AGENTS\.md)/;

/**
 * Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): each
 * line is `{timestamp, type, payload}` with type `session_meta` (id, cwd),
 * `turn_context` (cwd), `response_item` (a `message`, `function_call`,
 * `custom_tool_call` such as apply_patch, `local_shell_call`, their outputs,
 * `reasoning`), `event_msg` (UI echoes of the same, skipped) or `compacted`.
 * Older rollouts put the items at top level after a `{id, timestamp}` header.
 */
export const codexFormat: TranscriptFormat = {
  agent: "codex",
  newParser: () => new CodexParser(),
};

class CodexParser implements TranscriptParser {
  parse(record: unknown, line: RawLine): Parsed {
    if (!isObject(record)) return { type: "(not an object)", known: false, entries: [] };
    const type = stringField(record, "type");
    const timestamp = stringField(record, "timestamp") ?? "";
    const payload = isObject(record.payload) ? record.payload : {};
    switch (type) {
      case "session_meta": {
        const id = stringField(payload, "id");
        const cwd = stringField(payload, "cwd");
        return {
          type,
          known: true,
          entries: cwd ? [{ kind: "context", line: line.index, cwd }] : [],
          ...(id ? { session: id } : {}),
        };
      }
      case "turn_context": {
        const cwd = stringField(payload, "cwd");
        return {
          type,
          known: true,
          entries: cwd ? [{ kind: "context", line: line.index, cwd }] : [],
        };
      }
      case "response_item":
        return { type, known: true, entries: itemEntries(payload, line, timestamp) };
      case "compacted": {
        const text = stringField(payload, "message");
        const entries: Entry[] = [{ kind: "compact", line: line.index }];
        if (text) entries.push({ kind: "summary", line: line.index, text });
        return { type, known: true, entries };
      }
      case "event_msg":
        return { type, known: true, entries: [] };
      case undefined: {
        // The older header: `{id, timestamp, instructions}`.
        const id = stringField(record, "id");
        return id
          ? { type: "header", known: true, entries: [], session: id }
          : { type: "(no type)", known: false, entries: [] };
      }
      default:
        return ITEM_TYPES.has(type)
          ? { type, known: true, entries: itemEntries(record, line, timestamp) }
          : { type, known: false, entries: [] };
    }
  }
}

function itemEntries(item: Record<string, unknown>, line: RawLine, timestamp: string): Entry[] {
  switch (item.type) {
    case "message":
      return messageEntries(item, line, timestamp);
    case "function_call": {
      const name = stringField(item, "name") ?? "function";
      return [tool(line, item, name, commandInput(parseArguments(stringField(item, "arguments"))))];
    }
    case "custom_tool_call": {
      const name = stringField(item, "name") ?? "tool";
      const input = stringField(item, "input") ?? "";
      return [tool(line, item, name, name === "apply_patch" ? { patch: input } : { input })];
    }
    case "local_shell_call": {
      const action = isObject(item.action) ? item.action : {};
      return [tool(line, item, "local_shell", commandInput(action))];
    }
    case "function_call_output":
    case "custom_tool_call_output":
      return [{
        kind: "result",
        line: line.index,
        toolId: stringField(item, "call_id") ?? "",
        error: failed(item.output),
      }];
    default:
      return [];
  }
}

function messageEntries(
  item: Record<string, unknown>,
  line: RawLine,
  timestamp: string,
): Entry[] {
  const content = Array.isArray(item.content) ? item.content : [];
  const text = content.map((block) => stringField(block, "text") ?? "").join("\n").trim();
  if (!text) return [];
  if (item.role === "assistant") return [{ kind: "answer", line: line.index, text }];
  if (item.role !== "user" || BOILERPLATE.test(text)) return [];
  return [{
    kind: "prompt",
    line: line.index,
    offset: line.offset,
    text,
    timestamp,
    cwd: null,
    subAgent: false,
  }];
}

function tool(
  line: RawLine,
  item: Record<string, unknown>,
  name: string,
  input: Record<string, unknown>,
): Entry {
  const id = stringField(item, "call_id") ?? stringField(item, "id") ?? null;
  return { kind: "tool", line: line.index, id, name, input, sidechain: false };
}

function parseArguments(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const value = JSON.parse(text);
    return isObject(value) ? value : {};
  } catch {
    return { arguments: text };
  }
}

/** Codex's shell calls as `{command: "…"}`: `["bash", "-lc", "npm test"]` becomes `npm test`. */
function commandInput(args: Record<string, unknown>): Record<string, unknown> {
  const raw = args.command ?? args.cmd;
  let command: string | undefined;
  if (typeof raw === "string") command = raw;
  else if (Array.isArray(raw) && raw.every((part) => typeof part === "string")) {
    const shell = raw.length === 3 && /^(ba|z|)sh$/.test(raw[0]!.split("/").pop()!) &&
      /^-l?c$/.test(raw[1]!);
    command = shell ? raw[2] : raw.join(" ");
  }
  return command === undefined ? args : { ...args, command };
}

function failed(output: unknown): boolean {
  if (typeof output !== "string") return false;
  try {
    const value = JSON.parse(output);
    const code = isObject(value) && isObject(value.metadata) ? value.metadata.exit_code : 0;
    return typeof code === "number" && code !== 0;
  } catch {
    return false;
  }
}
