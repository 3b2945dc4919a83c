/**
 * Recall's answer as the web view's search page shows it: one row per result
 * in the fused order, with its source, handle, date, a short text and every
 * score component (the `debug` format, as data).
 * @module
 */
import type { RecallAnswer, RecallItem } from "../recall/answer.ts";
import type { HitComponents, Source } from "../recall/types.ts";
import { entityText } from "../recall/hit_records.ts";
import { entityHandle, turnHandle } from "../recall/handles.ts";

/** Characters of a result's text a row carries. */
const TEXT_CHARS = 600;

/** One result of a search, ready to show. */
export interface RecallRow {
  rank: number;
  source: Source;
  /**
   * What `cairn open` takes back: a memory id, `project:path:lines`,
   * `session:line`, an entity's name.
   */
  handle: string;
  /**
   * Its node in the graph view: `memory:<id>`, `code:<chunk id>`,
   * `turn:<turn id>`, `entity:<name>`.
   */
  node: string;
  /** The day it was stored, happened or was said; absent for code. */
  date?: string;
  project: string | null;
  /** A memory's kind, a code chunk's qualified name, an entity's type. */
  label: string;
  text: string;
  score: number;
  components: HitComponents;
  /** A memory stored later that may replace this one. */
  newer?: string;
}

/** The rows of `answer`, in its order. */
export function recallRows(answer: RecallAnswer): RecallRow[] {
  return answer.items.map((item, i) => ({
    rank: i + 1,
    score: item.score,
    components: item.components,
    ...fields(item),
  }));
}

function fields(item: RecallItem): Omit<RecallRow, "rank" | "score" | "components"> {
  switch (item.type) {
    case "memory": {
      const { memory } = item;
      return {
        source: "memory",
        handle: memory.id,
        node: `memory:${memory.id}`,
        date: (memory.occurred_at ?? memory.created_at).slice(0, 10),
        project: memory.project,
        label: memory.kind,
        text: memory.content.slice(0, TEXT_CHARS),
        ...(item.newer ? { newer: item.newer.memory.id } : {}),
      };
    }
    case "code": {
      const { code } = item;
      return {
        source: "code",
        handle: code.id,
        node: `code:${code.id}`,
        project: code.project,
        label: code.name,
        text: (code.signature ?? code.text).slice(0, TEXT_CHARS),
      };
    }
    case "turn": {
      const { turn } = item;
      return {
        source: "turn",
        handle: turnHandle(turn.session, turn.line),
        node: `turn:${turn.id}`,
        date: turn.started_at.slice(0, 10),
        project: turn.project,
        label: "session",
        text: turn.text.slice(0, TEXT_CHARS),
      };
    }
    case "entity": {
      const { entity } = item;
      return {
        source: "entity",
        handle: entityHandle(entity.name),
        node: `entity:${entity.name}`,
        project: null,
        label: entity.entityType,
        text: entityText(entity).slice(0, TEXT_CHARS),
      };
    }
  }
}
