/**
 * How the service's answers read: a recall answer as compact markdown, JSON
 * or a debug table, and the labels and lines of memories, code, turns and
 * entities that the operations (search, open, memories) and `recall --batch` share.
 * @module
 */
import type { MemoryRecord } from "../recall/memory_record.ts";
import type { RecallAnswer, RecallItem } from "../recall/answer.ts";
import { type CodeRecord, entityText, type TurnRecord } from "../recall/hit_records.ts";
import type { IndexedEntity } from "../../projections/text.ts";
import { answeringWindow, codeExcerpt, definitionLine, withoutScope } from "../recall/passage.ts";
import { entityHandle, turnHandle } from "../recall/handles.ts";
import { describeDifferences } from "../../text/fact_differences.ts";
import type { Contradiction } from "../recall/memory_record.ts";

/** How much text a markdown answer shows, in characters. */
export interface AnswerBudget {
  /** Characters the first results' lines may take in full before the rest get a short line each. */
  full: number;
  /** Longest excerpt of one memory or turn shown in full. */
  window: number;
  /** Longest excerpt of a result once the full ones have used `full`. */
  short: number;
}

/**
 * The budget of every markdown answer: the default answer (8 results) stays
 * near 500 tokens with the answering text of the best ones visible (measured
 * by `deno task bench mixed` and `tokens`).
 */
export const ANSWER_BUDGET: AnswerBudget = { full: 700, window: 360, short: 60 };

/**
 * Compact markdown in recall's one order across sources: each result
 * numbered, labelled with its source, its date where time matters and a
 * handle (`cairn open HANDLE`), then the part that answers (a memory's or a
 * turn's best window, a code chunk's signature and matched lines). The first
 * results get their excerpts in full; once they have used the answer's
 * budget, the rest get one short line each.
 */
export function formatMarkdown(answer: RecallAnswer, budget = ANSWER_BUDGET): string {
  const lines: string[] = [];
  let used = 0;
  answer.items.forEach((item, i) => {
    const room = used < budget.full ? budget.window : undefined;
    const text = itemMarkdown(item, answer.query, room ?? budget.short, room !== undefined);
    if (room !== undefined) used += text.length;
    lines.push(`${i + 1}. ${text}`);
  });
  if (lines.length === 0) lines.push("Nothing found.");
  for (const note of answer.notes) lines.push(`> ${note}`);
  return lines.join("\n");
}

/** Chunk kinds that define what they are named after (not a file's or a section's text). */
const DEFINITIONS: ReadonlySet<string> = new Set([
  "function",
  "method",
  "class",
  "struct",
  "interface",
  "enum",
  "impl",
  "type",
]);

/** One result: its label in brackets, then its excerpt of at most `chars` (code: `full` or its first line). */
function itemMarkdown(item: RecallItem, query: string, chars: number, full: boolean): string {
  switch (item.type) {
    case "memory": {
      const { memory } = item;
      const tags = memory.tags.filter((tag) => !tag.includes(":")).map((tag) => ` #${tag}`).join(
        "",
      );
      const text = answeringWindow(memory.content, query, chars);
      const newer = item.newer ? ` (${outOfDate(item.newer)})` : "";
      return `${memoryLabel(memory)} ${text}${tags}${newer}`;
    }
    case "code": {
      const { code } = item;
      const label = codeLabel(code);
      const body = withoutScope(code.text);
      // A file's or a section's chunk is named after it, not defined in it.
      const name = DEFINITIONS.has(code.kind) ? code.name : undefined;
      if (!full) {
        return `${label} ${oneLine(code.signature ?? definitionLine(body, name) ?? "")}`;
      }
      const excerpt = codeExcerpt(
        body,
        query,
        code.signature === undefined ? (name === undefined ? {} : { name }) : {
          signature: code.signature,
        },
      );
      return `${label}\n\`\`\`\n${excerpt}\n\`\`\``;
    }
    case "turn": {
      const { turn } = item;
      const text = answeringWindow(turn.text, query, chars);
      return `${turnLabel(turn)} ${text}`;
    }
    case "entity": {
      const { entity } = item;
      return `${entityLabel(entity)} ${answeringWindow(entityText(entity), query, chars)}`;
    }
  }
}

/**
 * That a memory stored later may replace one: `may be out of date: mem_…,
 * stored DATE, names differ (black vs ruff)`.
 */
export function outOfDate({ memory, differences }: Contradiction): string {
  return `may be out of date: ${memory.id}, stored ${memory.updated_at.slice(0, 10)}, ${
    describeDifferences(differences)
  }`;
}

/** A memory's label: `[memory KIND DATE ID]`, with its valid range when it has one. */
export function memoryLabel(memory: MemoryRecord): string {
  return `[memory ${memory.kind} ${memoryDates(memory)} ${memory.id}]`;
}

/** A code chunk's label: `[code HANDLE] \`NAME\``; the handle is the chunk's place. */
export function codeLabel(code: Pick<CodeRecord, "id" | "name">): string {
  return `[code ${visible(code.id)}] \`${visible(code.name)}\``;
}

/** A turn's label: `[session DATE HANDLE]`. */
export function turnLabel(turn: Pick<TurnRecord, "session" | "line" | "started_at">): string {
  return `[session ${turn.started_at.slice(0, 10)} ${
    visible(turnHandle(turn.session, turn.line))
  }]`;
}

/** An entity's label: `[entity TYPE HANDLE]`; the handle is its name (see `entityHandle`). */
export function entityLabel(entity: Pick<IndexedEntity, "name" | "entityType">): string {
  return `[entity ${visible(entity.entityType)} ${visible(entityHandle(entity.name))}]`;
}

/** When a memory was stored (or happened) and, when set, the range it is valid in. */
function memoryDates(memory: MemoryRecord): string {
  const when = (memory.occurred_at ?? memory.created_at).slice(0, 10);
  const range = validRange(memory);
  return range ? `${when} valid ${range}` : when;
}

/** `2026-01-01..2026-03-31` (an open end left empty); undefined when the memory sets neither. */
function validRange(memory: MemoryRecord): string | undefined {
  if (!memory.valid_from && !memory.valid_to) return undefined;
  return `${memory.valid_from?.slice(0, 10) ?? ""}..${memory.valid_to?.slice(0, 10) ?? ""}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/g;

/**
 * A name or a path as one visible line: a newline, a tab or another control
 * character in it (file systems allow them) is written as an escape, so it
 * cannot break the answer's lines or pass for another entry.
 *
 * @example
 * ```ts
 * visible("a\nb.py"); // "a\\nb.py"
 * ```
 */
export function visible(text: string): string {
  return text.replace(
    CONTROL,
    (char) =>
      char === "\n"
        ? "\\n"
        : char === "\t"
        ? "\\t"
        : char === "\r"
        ? "\\r"
        : `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * One memory as a compact markdown line: `- [kind] content #tags (project) `id``;
 * a content longer than `cut` characters ends there, saying how much more there is.
 */
export function memoryLine(memory: MemoryRecord, cut = Infinity): string {
  const tags = memory.tags.length ? ` ${memory.tags.map((tag) => `#${tag}`).join(" ")}` : "";
  const where = memory.project ? ` (${memory.project})` : "";
  const forgotten = memory.forgotten_at ? " [forgotten]" : "";
  const range = validRange(memory);
  const valid = range ? ` [valid ${range}]` : "";
  const text = memory.content.replace(/\s+/g, " ");
  const content = text.length > cut
    ? `${text.slice(0, cut)}… (${text.length - cut} more characters; open shows it whole)`
    : text;
  return `- [${memory.kind}] ${content}${tags}${where}${valid}${forgotten} \`${memory.id}\``;
}

/** The answer as one JSON object: items with their fields and scores, and the notes. */
export function formatJson(answer: RecallAnswer): string {
  return JSON.stringify({ results: answer.items.map(itemFields), notes: answer.notes });
}

function itemFields(item: RecallItem): Record<string, unknown> {
  const score = round(item.score);
  switch (item.type) {
    case "memory":
      return {
        type: "memory",
        score,
        ...item.memory,
        ...(item.newer
          ? { newer: { id: item.newer.memory.id, differences: item.newer.differences } }
          : {}),
      };
    case "code": {
      const prior = item.components.prior;
      // A kind of file ranked below code says so, and by how much.
      const lowered = prior ? { lowered: { kind: prior.kind, factor: prior.factor } } : {};
      return { type: "code", score, ...item.code, ...lowered };
    }
    case "turn":
      return { type: "turn", score, ...item.turn };
    case "entity":
      return { type: "entity", score, handle: entityHandle(item.entity.name), ...item.entity };
  }
}

/** The results of one `recall --batch` line, in the benchmark contract's shape. */
export function batchResults(answer: RecallAnswer): Array<Record<string, unknown>> {
  return answer.items.map((item) => {
    const score = round(item.score);
    switch (item.type) {
      case "memory":
        return {
          type: "memory",
          id: item.memory.id,
          ...(item.memory.external_id ? { source_id: item.memory.external_id } : {}),
          ...(item.memory.project ? { project: item.memory.project } : {}),
          score,
        };
      case "code":
        return {
          type: "code",
          id: item.code.id,
          project: item.code.project,
          file_path: item.code.path,
          start_line: item.code.start_line,
          end_line: item.code.end_line,
          name: item.code.name,
          score,
        };
      case "turn":
        return {
          type: "turn",
          id: item.turn.id,
          ...(item.turn.project ? { project: item.turn.project } : {}),
          score,
        };
      case "entity":
        return {
          type: "entity",
          id: item.entity.name,
          handle: entityHandle(item.entity.name),
          score,
        };
    }
  });
}

/** Every score component of every result, for tuning. */
export function formatDebug(answer: RecallAnswer): string {
  const lines = answer.items.map((item, i) => {
    const c = item.components;
    const parts = [
      `score ${round(item.score)}`,
      `fused ${round(c.fused)}`,
      c.vector ? `vector #${c.vector.rank} d=${round(c.vector.distance)}` : "vector -",
      c.lexical ? `lexical #${c.lexical.rank} s=${round(c.lexical.score)}` : "lexical -",
      c.context ? `context #${c.context.rank} s=${round(c.context.score)}` : "context -",
      c.graph ? `graph #${c.graph.rank} ppr=${round(c.graph.ppr)}` : "graph -",
      ...(c.mention ? [`named #${c.mention.rank}`] : []),
      ...(c.file ? [`file #${c.file.rank} d=${round(c.file.distance)}`] : []),
      ...(c.prior === undefined
        ? []
        : [`${c.prior.kind} x${c.prior.factor} of ${round(c.fused / c.prior.factor)}`]),
      ...(c.namesSymbol ? ["names the symbol"] : []),
      ...(c.rerank === undefined ? [] : [`rerank ${round(c.rerank)}`]),
    ];
    const { label, text } = describe(item);
    return `${i + 1}. [${label}] ${parts.join(" | ")}\n   ${oneLine(text).slice(0, 160)}`;
  });
  const lowered = answer.items.some((item) => item.components.prior !== undefined);
  const notes = lowered ? [...answer.notes, RANKS_APART] : answer.notes;
  return [...lines, ...notes.map((note) => `> ${note}`)].join("\n");
}

/** Why a lowered chunk and a chunk of code can both be #1 of a signal. */
const RANKS_APART = "a lowered chunk's ranks count every candidate; the other chunks' count " +
  "only what was not lowered";

function describe(item: RecallItem): { label: string; text: string } {
  switch (item.type) {
    case "memory":
      return { label: `memory ${item.memory.id}`, text: item.memory.content };
    case "code":
      return {
        label: `code ${visible(item.code.path)}:${item.code.start_line} ${visible(item.code.name)}`,
        text: item.code.text,
      };
    case "turn":
      return { label: `turn ${item.turn.id}`, text: item.turn.text };
    case "entity":
      return { label: `entity ${visible(item.entity.name)}`, text: entityText(item.entity) };
  }
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
