import type { MemoryRecord } from "../service/memory_record.ts";
import type { RecallAnswer, RecallItem } from "../service/recall_service.ts";

/** Lines of a code chunk shown in markdown: enough to recognise it, few tokens. */
const SNIPPET_LINES = 4;

/**
 * Compact markdown grouped by kind (Code, Memories, Sessions), with no ids,
 * vectors or timestamps beyond a date, so the answer costs the agent few tokens.
 */
export function formatMarkdown(answer: RecallAnswer): string {
  const lines: string[] = [];
  const group = (title: string, type: RecallItem["type"]) => {
    const items = answer.items.filter((item) => item.type === type);
    if (items.length === 0) return;
    lines.push(`## ${title}`);
    for (const item of items) lines.push(itemMarkdown(item));
  };
  group("Code", "code");
  group("Memories", "memory");
  group("Sessions", "turn");
  if (lines.length === 0) lines.push("Nothing found.");
  for (const note of answer.notes) lines.push(`> ${note}`);
  return lines.join("\n");
}

function itemMarkdown(item: RecallItem): string {
  switch (item.type) {
    case "memory": {
      const { memory } = item;
      const tags = memory.tags.filter((tag) => !tag.includes(":")).map((tag) => ` #${tag}`).join(
        "",
      );
      const when = memory.occurred_at ? ` (${memory.occurred_at.slice(0, 10)})` : "";
      return `- [${memory.kind}] ${oneLine(memory.content)}${tags}${when}`;
    }
    case "code": {
      const { code } = item;
      const body = code.text.split("\n").filter((line) =>
        line.trim() && !/^in (class|module|impl|struct|interface|namespace) /.test(line)
      )
        .slice(0, SNIPPET_LINES).join("\n");
      const place = `${visible(code.path)}:${code.start_line}-${code.end_line}`;
      return `- ${place} \`${visible(code.name)}\`\n\`\`\`\n${body}\n\`\`\``;
    }
    case "turn": {
      const { turn } = item;
      return `- ${turn.started_at.slice(0, 10)} session ${visible(turn.session.slice(0, 8))}: ${
        oneLine(turn.text).slice(0, 300)
      }`;
    }
  }
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

/** One memory as a compact markdown line: `- [kind] content (#tags, project)`. */
export function memoryLine(memory: MemoryRecord, withId = true): string {
  const tags = memory.tags.length ? ` ${memory.tags.map((tag) => `#${tag}`).join(" ")}` : "";
  const where = memory.project ? ` (${memory.project})` : "";
  const forgotten = memory.forgotten_at ? " [forgotten]" : "";
  const id = withId ? ` \`${memory.id}\`` : "";
  return `- [${memory.kind}] ${
    memory.content.replace(/\s+/g, " ")
  }${tags}${where}${forgotten}${id}`;
}

/** The answer as one JSON object: items with their fields and scores, and the notes. */
export function formatJson(answer: RecallAnswer): string {
  return JSON.stringify({ results: answer.items.map(itemFields), notes: answer.notes });
}

function itemFields(item: RecallItem): Record<string, unknown> {
  const score = round(item.score);
  switch (item.type) {
    case "memory":
      return { type: "memory", score, ...item.memory };
    case "code":
      return { type: "code", score, ...item.code };
    case "turn":
      return { type: "turn", score, ...item.turn };
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
      ...(c.prior === undefined ? [] : [`${c.prior.kind} x${c.prior.factor}`]),
      ...(c.namesSymbol ? ["names the symbol"] : []),
      ...(c.rerank === undefined ? [] : [`rerank ${round(c.rerank)}`]),
    ];
    const { label, text } = describe(item);
    return `${i + 1}. [${label}] ${parts.join(" | ")}\n   ${oneLine(text).slice(0, 160)}`;
  });
  return [...lines, ...answer.notes.map((note) => `> ${note}`)].join("\n");
}

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
  }
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
