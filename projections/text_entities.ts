/**
 * The knowledge graph's entities as documents of the lexical index: one per
 * entity, holding its name, its type, its observations and the relations
 * touching it (on both ends), so that recall finds the entity that answers
 * by any of them. The graph events are folded here as the graph projection
 * folds them into Kùzu: an entity is made by its creation, a relation to it
 * or a memory naming it; created again, it gains observations and (unless
 * the new type is the default `concept`) its type. Entities are searched in
 * every project, as the graph tools search them: their documents have none.
 * @module
 */
import type { StoredEvent } from "../events/schema.ts";
import type { TextDoc, TextOp } from "./text_store.ts";

/** An entity's relation as its document keeps it: `[from, type, to]`. */
export type RelationTriple = readonly [from: string, type: string, to: string];

/** The type an entity gets when it is made by a relation or a memory naming it. */
const DEFAULT_TYPE = "concept";

/** The key of an entity's document. */
export function entityKey(name: string): string {
  return `entity:${name}`;
}

/**
 * The ops that `event` makes on the entities' documents, read from `get`
 * (the documents as of the events before it); none for other events.
 */
export function entityOps(
  event: StoredEvent,
  get: (key: string) => TextDoc | undefined,
): TextOp[] {
  const changed = new Map<string, TextDoc>();
  const current = (name: string) => changed.get(name) ?? get(entityKey(name));
  const ensure = (name: string, type: string) => {
    const old = current(name);
    const doc: TextDoc = old
      ? {
        ...old,
        fields: [name, type === DEFAULT_TYPE ? old.fields[1]! : type, ...old.fields.slice(2)],
      }
      : { key: entityKey(name), source: "entity", id: name, project: null, fields: [name, type] };
    changed.set(name, doc);
    return doc;
  };
  const observe = (name: string, add: readonly string[], remove: readonly string[]) => {
    const doc = current(name);
    if (!doc) return;
    const [, type] = doc.fields;
    const observations = [...new Set([...doc.fields.slice(2), ...add])]
      .filter((observation) => !remove.includes(observation));
    changed.set(name, { ...doc, fields: [name, type!, ...observations] });
  };
  const relate = (triple: RelationTriple) => {
    for (const end of [triple[0], triple[2]]) {
      const doc = ensure(end, DEFAULT_TYPE);
      if (!(doc.relations ?? []).some((r) => sameTriple(r, triple))) {
        changed.set(end, { ...doc, relations: [...doc.relations ?? [], triple] });
      }
    }
  };
  const unrelate = (triple: RelationTriple, ends = [triple[0], triple[2]]) => {
    for (const end of ends) {
      const doc = current(end);
      if (!doc) continue;
      const relations = (doc.relations ?? []).filter((r) => !sameTriple(r, triple));
      const { relations: _, ...rest } = doc;
      changed.set(end, relations.length > 0 ? { ...rest, relations } : rest);
    }
  };
  switch (event.type) {
    case "entity.created": {
      const { name, entity_type, observations } = event.data;
      ensure(name, entity_type);
      observe(name, observations, []);
      break;
    }
    case "observations.added":
      observe(event.data.entity, event.data.observations, []);
      break;
    case "observations.deleted":
      observe(event.data.entity, [], event.data.observations);
      break;
    case "relation.created":
      relate([event.data.from, event.data.relation_type, event.data.to]);
      break;
    case "relation.deleted":
      unrelate([event.data.from, event.data.relation_type, event.data.to]);
      break;
    case "memory.remembered":
      for (const name of event.data.entities ?? []) ensure(name, DEFAULT_TYPE);
      for (const r of event.data.relations ?? []) relate([r.from, r.relation_type, r.to]);
      break;
    case "entity.deleted": {
      const { name } = event.data;
      const doc = current(name);
      if (!doc) return [];
      for (const triple of doc.relations ?? []) {
        unrelate(triple, [triple[0], triple[2]].filter((end) => end !== name));
      }
      changed.delete(name);
      return [...changed.values(), { key: entityKey(name), removed: true }];
    }
  }
  return [...changed.values()];
}

/** A relation as the index reads it: `from type to`, the type's underscores as spaces. */
export function relationText([from, type, to]: RelationTriple): string {
  return `${from} ${type.replaceAll("_", " ")} ${to}`;
}

function sameTriple(a: RelationTriple, b: RelationTriple): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}

/** An entity of the knowledge graph, as the lexical index holds it. */
export interface IndexedEntity {
  name: string;
  entityType: string;
  observations: string[];
  relations: readonly RelationTriple[];
}

/** Whether an entity says anything: an observation or a relation (a name alone does not). */
export function hasFacts(entity: IndexedEntity): boolean {
  return entity.observations.length > 0 || entity.relations.length > 0;
}

/** The entity an entity's document holds. */
export function indexedEntity(doc: TextDoc): IndexedEntity {
  const [name = doc.id, entityType = "", ...observations] = doc.fields;
  return { name, entityType, observations, relations: doc.relations ?? [] };
}

/** The entities' documents that `events` leave, by key. */
export async function foldEntities(
  events: AsyncIterable<StoredEvent>,
): Promise<Map<string, TextDoc>> {
  const folded = new Map<string, TextDoc>();
  for await (const event of events) {
    for (const op of entityOps(event, (key) => folded.get(key))) {
      if ("removed" in op) folded.delete(op.key);
      else folded.set(op.key, op);
    }
  }
  return folded;
}
