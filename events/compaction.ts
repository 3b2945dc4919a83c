import type { StoredEvent } from "./schema.ts";

/** The blob hashes an event references. */
export function blobsOf(event: StoredEvent): string[] {
  switch (event.type) {
    case "file.indexed":
      return event.data.chunks.map((chunk) => chunk.text);
    case "turn.ingested":
      return [event.data.text];
    default:
      return [];
  }
}

/** What a compaction drops: events by sequence number, and the memories purged. */
export interface CompactionPlan {
  drop: Set<number>;
  /** Ids of the purged memories whose events go: their content must leave the projections too. */
  purged: Set<string>;
}

/**
 * Decides which events a compaction drops, keeping the latest state of every
 * entity so that replaying the compacted log builds the same projections:
 * - a file's or a turn's events are superseded by its last one, and a file that
 *   was removed (a turn that was retracted) leaves no event at all;
 * - a project's history is superseded by the last one read;
 * - only the last position of a transcript is kept;
 * - a deleted project loses its earlier registration and file events;
 * - a deleted entity loses its earlier creation, observations and relations
 *   (the deletion stays: a memory may name the entity again);
 * - a purged memory loses every event, content included.
 * Memory revisions and forgotten memories are history and stay.
 */
export async function planCompaction(
  events: AsyncIterable<StoredEvent>,
): Promise<CompactionPlan> {
  const all: Array<{ seq: number; key?: string; ends?: boolean }> = [];
  const lastOfKey = new Map<string, number>();
  const projectDeletedAt = new Map<string, number>();
  const entityDeletedAt = new Map<string, number>();
  const purged = new Set<string>();
  const memoryOf = new Map<number, string>();
  const fileProjectOf = new Map<number, string>();
  const entitiesOf = new Map<number, string[]>();

  for await (const event of events) {
    const { key, ends } = supersessionKey(event);
    all.push({ seq: event.seq, ...(key ? { key, ends } : {}) });
    if (key) lastOfKey.set(key, event.seq);
    switch (event.type) {
      case "project.deleted":
        projectDeletedAt.set(event.data.project, event.seq);
        break;
      case "entity.deleted":
        entityDeletedAt.set(event.data.name, event.seq);
        break;
      case "memory.purged":
        purged.add(event.data.id);
        break;
    }
    if (event.type.startsWith("memory.")) {
      memoryOf.set(event.seq, (event.data as { id: string }).id);
    }
    if (
      event.type === "file.indexed" || event.type === "file.removed" ||
      event.type === "project.registered" || event.type === "project.history_read"
    ) {
      fileProjectOf.set(event.seq, event.data.project);
    }
    const touched = entitiesTouched(event);
    if (touched.length) entitiesOf.set(event.seq, touched);
  }

  const drop = new Set<number>();
  for (const item of all) {
    const superseded = item.key !== undefined &&
      (lastOfKey.get(item.key) !== item.seq || item.ends === true);
    const project = fileProjectOf.get(item.seq);
    const projectGone = project !== undefined && item.seq < (projectDeletedAt.get(project) ?? 0);
    const entityGone = (entitiesOf.get(item.seq) ?? [])
      .some((name) => item.seq < (entityDeletedAt.get(name) ?? 0));
    const memory = memoryOf.get(item.seq);
    const memoryGone = memory !== undefined && purged.has(memory);
    if (superseded || projectGone || entityGone || memoryGone) drop.add(item.seq);
  }
  return { drop, purged };
}

function supersessionKey(event: StoredEvent): { key?: string; ends?: boolean } {
  switch (event.type) {
    case "file.indexed":
    case "file.removed":
      return {
        key: `file\0${event.data.project}\0${event.data.path}`,
        ends: event.type === "file.removed",
      };
    case "turn.ingested":
    case "turn.retracted":
      return {
        key: `turn\0${event.data.session}\0${event.data.line}`,
        ends: event.type === "turn.retracted",
      };
    case "transcript.advanced":
      return { key: `transcript\0${event.data.path}`, ends: false };
    case "project.history_read":
      return { key: `history\0${event.data.project}`, ends: false };
    default:
      return {};
  }
}

function entitiesTouched(event: StoredEvent): string[] {
  switch (event.type) {
    case "entity.created":
      return [event.data.name];
    case "observations.added":
    case "observations.deleted":
      return [event.data.entity];
    case "relation.created":
    case "relation.deleted":
      return [event.data.from, event.data.to];
    default:
      return [];
  }
}
