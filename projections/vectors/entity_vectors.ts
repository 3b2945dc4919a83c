/**
 * The vectors of the knowledge graph's entities: one per observation
 * (`NAME: observation`) and one per relation on each of its ends (`FROM type
 * TO`, the same text, embedded once), all in the entity's group, so that
 * recall finds an entity by the meaning of any one fact about it. Entities
 * are searched in every project, as the graph tools search them: their
 * vectors share one partition.
 * @module
 */
import { sha256Hex } from "../../events/blobs.ts";
import type { StoredEvent } from "../../events/schema.ts";
import { relationText } from "../text_entities.ts";

/** The partition every entity's vectors are in. */
export const ENTITY_PARTITION = "entity._global";

/** A change to the entities' vectors, in {@linkcode ENTITY_PARTITION}. */
export type EntityVectorChange =
  | { id: string; group: string; text: string }
  | { id: string; remove: true }
  | { group: string; keep: ReadonlySet<string> };

/**
 * The changes `event` makes to the entities' vectors; `held` lists the ids
 * held or queued, for an entity's deletion to find the relations naming it
 * in the other entities' groups. Relations named by a memory are left to the
 * lexical index: memory events are applied ahead of the ones before them.
 */
export async function entityVectorChanges(
  event: StoredEvent,
  held: () => Promise<Iterable<string>>,
): Promise<EntityVectorChange[]> {
  switch (event.type) {
    case "entity.created":
      return await observed(event.data.name, event.data.observations);
    case "observations.added":
      return await observed(event.data.entity, event.data.observations);
    case "observations.deleted": {
      const { entity, observations } = event.data;
      const ids = await Promise.all(observations.map((text) => observationId(entity, text)));
      return ids.map((id) => ({ id, remove: true as const }));
    }
    case "relation.created": {
      const { from, relation_type: type, to } = event.data;
      const text = relationText([from, type, to]);
      return [from, to].map((end) => ({ id: relationId(end, from, type, to), group: end, text }));
    }
    case "relation.deleted": {
      const { from, relation_type: type, to } = event.data;
      return [from, to].map((end) => ({ id: relationId(end, from, type, to), remove: true }));
    }
    case "entity.deleted": {
      const { name } = event.data;
      const naming = [...await held()].filter((id) => {
        const parts = id.split("\0");
        return parts[1] === "r" && (parts[2] === name || parts[4] === name);
      });
      return [
        { group: name, keep: new Set() },
        ...naming.map((id) => ({ id, remove: true as const })),
      ];
    }
    default:
      return [];
  }
}

/** The entity a vector of the entities belongs to, by its id (`entity:NAME\0…`). */
export function entityOfVector(id: string): string {
  const end = id.indexOf("\0");
  return id.slice("entity:".length, end < 0 ? undefined : end);
}

async function observed(name: string, observations: readonly string[]) {
  return await Promise.all(observations.map(async (text) => ({
    id: await observationId(name, text),
    group: name,
    text: `${name}: ${text}`,
  })));
}

async function observationId(name: string, observation: string): Promise<string> {
  return `entity:${name}\0o\0${(await sha256Hex(observation)).slice(0, 32)}`;
}

function relationId(end: string, from: string, type: string, to: string): string {
  return `entity:${end}\0r\0${from}\0${type}\0${to}`;
}
