/**
 * The memory operations: remember, revise, forget, list and get.
 * @module
 */
import { z } from "zod";
import { MemoryKind } from "../../events/kinds/memory.ts";
import { memoryLine, outOfDate } from "./format.ts";
import { startOf } from "../recall/passage.ts";
import { isoDate } from "../service/dates.ts";
import { NotFoundError } from "../errors.ts";
import { describeDifferences } from "../../text/fact_differences.ts";
import { MAX_MEMORY_CHARS } from "../service/memories.ts";
import type { MemoryRecord } from "../recall/memory_record.ts";
import type { Contradiction } from "../recall/memory_record.ts";
import { relationFromText } from "../service/relation_text.ts";
import { operation } from "./operation.ts";
import { asOfInput, timeInput } from "./time_input.ts";

const id = z.string().min(1).max(200).describe("memory id, e.g. mem_…");
const project = z.string().min(1).max(200);
const content = z.string().trim().min(1, "content is empty").max(MAX_MEMORY_CHARS);

const memoryFields = {
  kind: MemoryKind.optional(),
  tags: z.array(z.string().min(1).max(100)).max(50).optional(),
  valid_from: isoDate.optional(),
  valid_to: isoDate.optional(),
};

/** The fields of `input` that are set. */
function given<T extends Record<string, unknown>>(input: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(input).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}

/**
 * Characters of a memory's text shown where the whole was not asked for (a
 * list, the answer to remember or revise): a page of them stays a page, and an
 * agent is not sent back the long text it just sent.
 */
const LINE_CHARS = 500;

/** Characters of a memory's text a note that names it quotes. */
const NOTE_CHARS = 80;

/** The note naming a stored memory the new memory `id` may contradict, and how to replace it. */
function contradictionNote({ memory, differences }: Contradiction, id: string): string {
  return `> Possible contradiction with memory \`${memory.id}\` ("${
    startOf(memory.content, NOTE_CHARS)
  }"): ` +
    `${describeDifferences(differences)}. If this one replaces it: revise it with the new ` +
    `text (\`cairn revise ${memory.id} "..."\`, or the revise tool; the old text stays in ` +
    `its history), then forget \`${id}\`.`;
}

/** `remember`: stores a memory, or names the one already known or one it may contradict. */
export const remember = operation({
  command: "remember",
  tool: "remember",
  summary: "store a memory: a decision, fact, pattern, preference or note",
  description:
    "Store a memory worth having in later sessions: a decision, fact, pattern or preference. " +
    "One idea per memory; text already stored is not stored twice, and a stored memory it may " +
    "contradict is named.",
  core: true,
  writes: true,
  input: {
    content,
    ...memoryFields,
    project: project.optional().describe("omit for a global memory"),
    entities: z.array(z.string().min(1).max(200)).max(50).optional()
      .describe("names it is about"),
    relations: z.array(
      z.string().max(600).refine(
        (text) => relationFromText(text) !== undefined,
        "takes FROM|RELATION|TO, like Ada|maintains|billing",
      ),
    ).max(50).optional().describe("FROM|RELATION|TO"),
    source: z.string().min(1).max(2000).optional().describe("where it comes from"),
    force: z.boolean().optional().describe("store even if already known"),
  },
  output: {
    id: z.string(),
    duplicate: z.boolean(),
    contradicts: z.array(z.string()).optional(),
  },
  cli: {
    positionals: [{
      key: "content",
      name: "TEXT",
      rest: true,
      missing: "give the text to remember",
    }],
    flags: { tags: "tag", entities: "entity", relations: "relation" },
    help: "  --relation  a relation between two entities, in active voice: 'Ada|maintains|billing'",
  },
  async run(cairn, input) {
    const { content, relations, project, ...rest } = input;
    return await cairn.memories.remember({
      ...given(rest),
      content,
      project: project ?? null,
      ...(relations ? { relations: relations.map((text) => relationFromText(text)!) } : {}),
    });
  },
  render({ memory, duplicate, contradictions, newer }) {
    const head = duplicate
      ? "already known (--force, or force: true, stores it again):"
      : "remembered:";
    const notes = contradictions.map((contradiction) =>
      contradictionNote(contradiction, memory.id)
    );
    if (newer) notes.push(`> This memory ${outOfDate(newer)}.`);
    const contradicts = contradictions.map((contradiction) => contradiction.memory.id);
    return {
      text: [head, memoryLine(memory, LINE_CHARS), ...notes].join("\n"),
      data: { id: memory.id, duplicate, ...(contradicts.length ? { contradicts } : {}) },
      json: { memory, duplicate, contradictions, ...(newer ? { newer } : {}) },
    };
  },
});

/** `revise`: changes a memory; the earlier version stays in its history. */
export const revise = operation({
  command: "revise",
  tool: "revise",
  summary: "change a memory's text, kind, tags or validity (history is kept)",
  description:
    "Correct or update a memory by id; the earlier version stays in history. Ids come from " +
    "list_memories or recall with format json.",
  core: false,
  writes: true,
  input: { id, content: content.optional(), ...memoryFields },
  output: { id: z.string(), changed: z.boolean() },
  cli: {
    positionals: [
      { key: "id", name: "ID", missing: "give the memory's id" },
      { key: "content", name: "TEXT", rest: true },
    ],
    flags: { tags: "tag" },
  },
  run: (cairn, input) => cairn.memories.revise(given(input) as typeof input),
  render: ({ memory, changed, sameAs }) => ({
    text: [
      `${changed ? "revised" : "unchanged (it says that already)"}:`,
      memoryLine(memory, LINE_CHARS),
      ...(sameAs
        ? [
          `> \`${sameAs.id}\` says the same already: forget one of the two ` +
          `(\`cairn forget ${memory.id}\`, or the forget tool)`,
        ]
        : []),
    ].join("\n"),
    data: { id: memory.id, changed },
    json: memory,
  }),
});

/** `forget`: forgets a memory; `purge` also removes its content from the log. */
export const forget = operation({
  command: "forget",
  tool: "forget",
  summary: "forget a memory (--purge also removes its content from the log)",
  description: "Forget a memory that is wrong or obsolete, by id.",
  core: true,
  writes: true,
  input: {
    id,
    reason: z.string().max(1000).optional(),
    purge: z.boolean().optional().describe("also remove its content from the log"),
  },
  output: {
    id: z.string(),
    forgotten_before: z.string().optional(),
  },
  cli: {
    positionals: [{ key: "id", name: "ID", missing: "give the memory's id" }],
    cliOnly: ["purge"],
  },
  async run(cairn, { id, reason, purge }) {
    const { forgottenBefore } = await cairn.memories.forget(id, {
      ...(reason ? { reason } : {}),
      purge: purge ?? false,
    });
    return { id, purged: purge ?? false, forgottenBefore };
  },
  render: ({ id, purged, forgottenBefore }) => ({
    text: purged
      ? `purged \`${id}\`: its content is gone from the log`
      : forgottenBefore
      ? `already forgotten on ${forgottenBefore.slice(0, 10)}: \`${id}\` (nothing changed)`
      : `forgotten: \`${id}\``,
    data: { id, ...(forgottenBefore ? { forgotten_before: forgottenBefore } : {}) },
  }),
});

/** `list`: memories, newest first, with filters. */
export const list = operation({
  command: "list",
  tool: "list_memories",
  summary: "list memories, newest first (filters: project, kind, tag)",
  description: "List stored memories with their ids, newest first.",
  core: false,
  writes: false,
  input: {
    project: project.optional(),
    kind: MemoryKind.optional(),
    tag: z.string().min(1).max(100).optional(),
    forgotten: z.boolean().optional().describe("include forgotten memories"),
    limit: z.number().int().min(1).max(50).optional().describe("default 20"),
    offset: z.number().int().min(0).optional(),
    ...timeInput,
  },
  output: { count: z.number(), ids: z.array(z.string()) },
  cli: { cliOnly: ["forgotten"] },
  async run(cairn, { forgotten, ...filters }): Promise<Listed> {
    const memories = await cairn.memories.list({
      ...given(filters),
      include_forgotten: forgotten ?? false,
    });
    const { project, as_of } = filters;
    // Which projects held memories then is not known: the note is for today's memories.
    if (!project || as_of || memories.some((m) => m.project === project)) return { memories };
    const projects = await cairn.memories.projects();
    return projects.includes(project) ? { memories } : { memories, projects };
  },
  render: ({ memories, projects }: Listed, { project }) => {
    const lines = memories.length
      ? memories.map((m) => memoryLine(m, LINE_CHARS))
      : ["No memories match."];
    if (projects) {
      lines.unshift(
        `> no memory is in project ${project}${
          projects.length ? ` (memories are in ${projects.join(", ")})` : ""
        }${memories.length ? "; below, the global memories, which every project sees" : ""}`,
      );
    }
    return {
      text: lines.join("\n"),
      data: { count: memories.length, ids: memories.map((m) => m.id) },
      json: memories,
    };
  },
});

/**
 * A page of memories; when the project asked for holds none, the projects
 * that do (the page then lists only global memories).
 */
interface Listed {
  memories: MemoryRecord[];
  projects?: string[];
}

/** `get`: one memory by id, as it is or as it was. */
export const get = operation({
  command: "get",
  summary: "show one memory by id",
  description: "One memory by id, with its kind, tags, project and validity (CLI only: " +
    "recall and list_memories show agents the same lines).",
  core: false,
  writes: false,
  input: { id, ...asOfInput },
  output: { memory: z.looseObject({}) },
  cli: { positionals: [{ key: "id", name: "ID", missing: "give the memory's id" }] },
  async run(cairn, { id, as_of }) {
    const memory = await cairn.memories.get(id, as_of ? { as_of } : {});
    if (memory) return memory;
    const now = as_of ? await cairn.memories.get(id) : undefined;
    if (now) {
      throw new NotFoundError(
        `memory ${id} did not exist yet at ${as_of} (it was remembered at ${now.created_at})`,
      );
    }
    throw new NotFoundError(`no memory with id ${id}`);
  },
  render: (memory: MemoryRecord) => ({
    text: memoryLine(memory),
    data: { memory },
    json: memory,
  }),
});
