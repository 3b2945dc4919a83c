/**
 * The `open` operation: the whole item behind a handle a recall answer shows.
 * @module
 */
import { z } from "zod";
import { codeLabel, memoryLabel, outOfDate, turnLabel, visible } from "./format.ts";
import { startOf, withoutScope } from "../recall/passage.ts";
import type { TurnRecord } from "../recall/hit_records.ts";
import { type Opened, openHandle } from "../service/open_item.ts";
import { operation } from "./operation.ts";
import { pageLines } from "../service/graph_format.ts";

/** Longest text shown of a turn's neighbour. */
const NEIGHBOUR_CHARS = 400;

/**
 * `open HANDLE`: a memory with its history, a turn with its neighbours and
 * files, a chunk with its file's outline, an entity with its relations.
 */
export const open = operation({
  command: "open",
  tool: "open",
  summary: "show the whole item behind a recall handle (memory, session turn, code or entity)",
  description: "The whole item behind a handle recall printed: a memory with its history, a " +
    "session turn with its neighbours and files, a code chunk with its file's outline, an " +
    "entity with its facts.",
  core: true,
  writes: false,
  input: {
    handle: z.string().trim().min(1, "give a handle").max(4_096)
      .describe("mem_…, SESSION:LINE, PROJECT:PATH:START-END or entity name"),
  },
  output: { item: z.looseObject({}) },
  cli: {
    positionals: [{ key: "handle", name: "HANDLE", missing: "give a handle recall printed" }],
    help: "  HANDLE  as recall prints it: mem_… (a memory), SESSION:LINE (a session turn; the\n" +
      "          session id's first 8 characters are enough), PROJECT:PATH:START-END (code),\n" +
      "          an entity's name (entity:NAME when the name looks like another handle)",
  },
  run: (cairn, { handle }) => openHandle(cairn, handle),
  render: (opened: Opened) => ({ text: openedMarkdown(opened), data: { item: opened } }),
});

/** The opened item as markdown: its label, its whole text, then what surrounds it. */
function openedMarkdown(opened: Opened): string {
  switch (opened.type) {
    case "memory": {
      const { memory, versions, newer } = opened;
      const lines = [
        `${memoryLabel(memory)}${memory.project ? ` project ${visible(memory.project)}` : ""}${
          memory.tags.length ? ` ${memory.tags.map((tag) => `#${tag}`).join(" ")}` : ""
        }`,
        memory.content,
        ...(newer ? [`This memory ${outOfDate(newer)}.`] : []),
      ];
      if (versions.length > 1) {
        lines.push("", "History:");
        for (const version of versions) {
          const fields = Object.entries(version.fields)
            .map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join(", ");
          lines.push(`- ${version.at.slice(0, 19)} ${version.change}${fields ? ` ${fields}` : ""}`);
        }
      }
      return lines.join("\n");
    }
    case "turn": {
      const { turn, before, after, files } = opened;
      const neighbour = (label: string, other: TurnRecord) =>
        `${label} ${turnLabel(other)} ${startOf(other.text, NEIGHBOUR_CHARS)}`;
      const lines = [
        `${turnLabel(turn)}${turn.project ? ` project ${visible(turn.project)}` : ""}`,
        turn.text,
      ];
      if (before || after || files.length) lines.push("");
      if (before) lines.push(neighbour("Before:", before));
      if (after) lines.push(neighbour("After:", after));
      if (files.length) {
        lines.push(
          `Files: ${files.map((file) => `${visible(file.path)} (${file.tool})`).join(", ")}`,
        );
      }
      return lines.join("\n");
    }
    case "code": {
      const { code, outline, gone } = opened;
      const body = withoutScope(code.text).split("\n");
      const width = String(code.start_line + body.length - 1).length;
      const lines = [
        ...(gone
          ? [
            `No chunk is ${visible(gone.handle)} (its file changed since, or these lines are ` +
            `not one chunk's); this one holds line ${gone.line}:`,
          ]
          : []),
        `${codeLabel(code)} ${code.kind}`,
        "```",
        ...(code.signature === undefined ? [] : [`${" ".repeat(width)}  ${code.signature}`, "⋮"]),
        ...body.map((line, i) => `${String(code.start_line + i).padStart(width)}  ${line}`),
        "```",
        `In ${visible(code.path)}:`,
        ...outline.map((entry) =>
          `- ${entry.start_line}-${entry.end_line} ${entry.kind} \`${visible(entry.name)}\`${
            entry.id === code.id ? " (this one)" : ""
          }`
        ),
      ];
      return lines.join("\n");
    }
    case "entity":
      return pageLines(opened.page, 0, () => "").join("\n");
  }
}
