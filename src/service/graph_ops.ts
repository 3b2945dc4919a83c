import { z } from "zod";
import type { NewEvent } from "../../events/schema.ts";
import { entityCreated } from "../../events/kinds/graph.ts";
import type { KuzuDb } from "../../projections/graph/kuzu.ts";
import {
  entityCount,
  entityPage,
  existingEntities,
  observationsOf,
  outgoingRelationCounts,
  relationCount,
  relationCountOf,
  type RelationEnds,
  relationsOf,
} from "../../projections/graph/queries/entities.ts";
import { relationArrow } from "../recall/hit_records.ts";
import { UserError } from "../errors.ts";
import { graphAsOf } from "./graph_as_of.ts";
import type { Store } from "./store.ts";

// deno-lint-ignore no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * An entity's name (or type, or a relation's type): one visible line, since
 * answers print it on one line and `open` takes it back.
 */
export const graphName = z.string().trim().min(1).max(200)
  .refine(
    (text) => !CONTROL_CHARACTER.test(text),
    "a name is one line, without control characters",
  );
const observation = z.string().min(1).max(4096);

/** Entities to create, as the official MCP memory server takes them. */
export const EntitiesInput = z.array(z.object({
  name: graphName,
  entityType: graphName,
  observations: z.array(observation).max(100).default([]),
})).min(1).max(100);

/** Relations to create or delete (`from` → `to`, in active voice). */
export const RelationsInput = z.array(
  z.object({ from: graphName, to: graphName, relationType: graphName }),
).min(1)
  .max(100);

/** Observations to add to (or delete from) entities. */
export const ObservationsInput = z.array(z.object({
  entityName: graphName,
  contents: z.array(observation).min(1).max(100),
})).min(1).max(100);

/** Observations to delete, as the official MCP memory server takes them. */
export const ObservationDeletionsInput = z.array(z.object({
  entityName: graphName,
  observations: z.array(observation).min(1).max(100),
})).min(1).max(100);

/** A page of a listing: where to start and how many. */
export const Page = z.object({
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(100).default(50),
});

/**
 * Most relations a page lists. Reading the graph, a page takes fewer entities
 * rather than go past it; only one entity with more relations than this fills
 * a page and leaves the rest out (the page says how many).
 */
export const MAX_PAGE_RELATIONS = 250;

/** An entity with its observations, as the memory server shows it. */
export interface EntityRecord {
  name: string;
  entityType: string;
  observations: string[];
}

/** A relation between two entities. */
export interface RelationRecord {
  from: string;
  to: string;
  relationType: string;
}

/** Which graph a read looks at: today's, or the graph as it was `as_of` a past moment. */
export interface GraphReadOptions {
  as_of?: string;
}

/** How a deletion treats what the graph does not have: skipped, or (`strict`) refused. */
export interface DeleteOptions {
  strict?: boolean;
}

/** Whether two relations are the same: the same ends and type. */
export function sameRelation(a: RelationRecord, b: RelationRecord): boolean {
  return a.from === b.from && a.to === b.to && a.relationType === b.relationType;
}

/** A relation as `from —type→ to`. */
export function relationLine(relation: RelationRecord): string {
  return relationArrow(relation.from, relation.relationType, relation.to);
}

/** What a deletion did: what it deleted, and what it skipped as not in the graph. */
export interface Deleted<T> {
  deleted: T[];
  absent: T[];
}

/** A part of the graph: entities and their relations, with whether more exist. */
export interface GraphPage {
  entities: EntityRecord[];
  relations: RelationRecord[];
  /** Entities that match beyond this page. */
  more: number;
  /** Relations this page leaves out, beyond {@linkcode MAX_PAGE_RELATIONS}; absent when none. */
  relationsOmitted?: number;
}

/**
 * The knowledge-graph operations of the official MCP memory server, on
 * cairn's log and graph: commands append events, queries read Kùzu, listings
 * are paginated and never return the whole graph at once.
 */
export class GraphOps {
  constructor(private readonly store: Store, private readonly db: KuzuDb) {}

  /**
   * Creates entities that do not exist yet, in `project` (the one a team
   * shares them with; none by default); returns the ones created. A name
   * given twice is one entity, of the first type given, with the observations
   * of both.
   */
  async createEntities(
    input: z.input<typeof EntitiesInput>,
    project: string | null = null,
  ): Promise<EntityRecord[]> {
    const byName = new Map<string, EntityRecord>();
    for (const entity of EntitiesInput.parse(input)) {
      const first = byName.get(entity.name);
      byName.set(
        entity.name,
        first
          ? {
            ...first,
            observations: [...new Set([...first.observations, ...entity.observations])],
          }
          : entity,
      );
    }
    const known = await this.#existing([...byName.keys()]);
    const fresh = [...byName.values()].filter((e) => !known.has(e.name));
    await this.#append(fresh.map((entity) => entityCreated(entity, project)));
    return fresh;
  }

  /** Creates relations between existing entities (an unknown one is refused); returns the new ones. */
  async createRelations(input: z.input<typeof RelationsInput>): Promise<RelationRecord[]> {
    const relations = RelationsInput.parse(input);
    await this.#requireEntities([...new Set(relations.flatMap((r) => [r.from, r.to]))]);
    const fresh: RelationRecord[] = [];
    for (const r of relations) {
      const held = await relationCount(this.db, r);
      const duplicate = fresh.some((f) =>
        f.from === r.from && f.to === r.to && f.relationType === r.relationType
      );
      if (held === 0 && !duplicate) fresh.push(r);
    }
    await this.#append(fresh.map((r) => ({
      type: "relation.created",
      v: 1,
      data: { from: r.from, to: r.to, relation_type: r.relationType },
    })));
    return fresh;
  }

  /** Adds observations to existing entities; returns what was new per entity. */
  async addObservations(
    input: z.input<typeof ObservationsInput>,
  ): Promise<Array<{ entityName: string; addedObservations: string[] }>> {
    const items = ObservationsInput.parse(input);
    await this.#requireEntities(items.map((i) => i.entityName));
    const current = await observationsOf(this.db, items.map((i) => i.entityName));
    const added = items.map((i) => ({
      entityName: i.entityName,
      addedObservations: [...new Set(i.contents)].filter((c) =>
        !current.get(i.entityName)?.includes(c)
      ),
    }));
    await this.#append(
      added.filter((a) => a.addedObservations.length).map((a) => ({
        type: "observations.added",
        v: 1,
        data: { entity: a.entityName, observations: a.addedObservations },
      })),
    );
    return added;
  }

  /**
   * Deletes entities and every relation touching them. Unknown names are
   * ignored, as the memory server does; with `strict`, they are refused.
   */
  async deleteEntities(
    names: string[],
    { strict = false }: DeleteOptions = {},
  ): Promise<Deleted<string>> {
    const wanted = [...new Set(z.array(graphName).min(1).max(100).parse(names))];
    if (strict) await this.#requireEntities(wanted);
    const known = await this.#existing(wanted);
    await this.#append(
      [...known].map((n) => ({ type: "entity.deleted", v: 1, data: { name: n } })),
    );
    return { deleted: [...known], absent: wanted.filter((n) => !known.has(n)) };
  }

  /**
   * Deletes observations from entities; with `strict`, an entity or an
   * observation the graph does not have is refused, and nothing changes.
   */
  async deleteObservations(
    input: z.input<typeof ObservationsInput>,
    { strict = false }: DeleteOptions = {},
  ): Promise<Array<{ entityName: string } & Deleted<string>>> {
    const items = ObservationsInput.parse(input);
    const entities = [...new Set(items.map((i) => i.entityName))];
    if (strict) await this.#requireEntities(entities);
    const held = await observationsOf(this.db, entities);
    const outcome = items.map(({ entityName, contents }) => ({
      entityName,
      deleted: contents.filter((c) => held.get(entityName)?.includes(c)),
      absent: contents.filter((c) => !held.get(entityName)?.includes(c)),
    }));
    const refused = strict ? outcome.find((o) => o.absent.length) : undefined;
    if (refused) {
      const quoted = refused.absent.map((a) => JSON.stringify(a)).join(", ");
      throw new UserError(
        `${refused.entityName} has no observation ${quoted}; nothing was changed`,
      );
    }
    await this.#append(
      outcome.filter((o) => o.deleted.length).map((o) => ({
        type: "observations.deleted",
        v: 1,
        data: { entity: o.entityName, observations: o.deleted },
      })),
    );
    return outcome;
  }

  /**
   * Deletes the relations the graph has, and says which it did not have;
   * with `strict`, one it does not have is refused, and nothing changes.
   */
  async deleteRelations(
    input: z.input<typeof RelationsInput>,
    { strict = false }: DeleteOptions = {},
  ): Promise<Deleted<RelationRecord>> {
    const relations = RelationsInput.parse(input);
    const ends = [...new Set(relations.flatMap((r) => [r.from, r.to]))];
    const held: RelationRecord[] = [];
    for (let at = 0; at < ends.length; at += 100) {
      held.push(...(await this.openNodes(ends.slice(at, at + 100))).relations);
    }
    const holds = (r: RelationRecord) => held.some((h) => sameRelation(h, r));
    const absent = relations.filter((r) => !holds(r));
    if (strict && absent.length) {
      throw new UserError(`no relation ${relationLine(absent[0]!)}; nothing was changed`);
    }
    const deleted = relations.filter(holds);
    await this.#append(deleted.map((r) => ({
      type: "relation.deleted",
      v: 1,
      data: { from: r.from, to: r.to, relation_type: r.relationType },
    })));
    return { deleted, absent };
  }

  /** The named entities and their relations (those with at least one end among them). */
  async openNodes(names: string[], options: GraphReadOptions = {}): Promise<GraphPage> {
    if (options.as_of) return await this.#then(options.as_of, (past) => past.openNodes(names));
    const wanted = z.array(graphName).min(1).max(100).parse(names);
    return {
      ...await this.#withRelations(
        await entityPage(this.db, wanted, 0, 100),
      ),
      more: 0,
    };
  }

  /** Entities whose name, type or observations contain `query` (case-insensitive), a page at a time. */
  async searchNodes(
    query: string,
    page: z.input<typeof Page> & GraphReadOptions = {},
  ): Promise<GraphPage> {
    if (page.as_of) {
      return await this.#then(
        page.as_of,
        (past) => past.searchNodes(query, Page.parse(page)),
      );
    }
    const { offset, limit } = Page.parse(page);
    const q = z.string().trim().min(1).max(4096).parse(query).toLowerCase();
    // Kùzu cannot take a parameter inside a list predicate, so observations are matched here.
    const matches = (await entityPage(this.db, undefined, 0, Number.MAX_SAFE_INTEGER)).filter((e) =>
      [e.name, e.entityType, ...e.observations].some((text) => text.toLowerCase().includes(q))
    );
    const entities = matches.slice(offset, offset + limit);
    const total = matches.length;
    return {
      ...await this.#withRelations(entities),
      more: Math.max(0, total - offset - entities.length),
    };
  }

  /**
   * The whole graph, a page of entities at a time, each with the relations
   * that start from it: over all pages every entity and every relation shows
   * once. A page stops early rather than list more than
   * {@linkcode MAX_PAGE_RELATIONS} relations; the next page starts where it stopped.
   */
  async readGraph(page: z.input<typeof Page> & GraphReadOptions = {}): Promise<GraphPage> {
    if (page.as_of) {
      return await this.#then(page.as_of, (past) => past.readGraph(Page.parse(page)));
    }
    const { offset, limit } = Page.parse(page);
    const total = await entityCount(this.db);
    const candidates = await entityPage(this.db, undefined, offset, limit);
    const entities = withinRelationBudget(candidates, await this.#outgoing(candidates));
    return {
      entities,
      ...await this.#relations("from", entities),
      more: Math.max(0, total - offset - entities.length),
    };
  }

  /** Runs `read` on the graph as it was at `asOf`. */
  async #then<T>(asOf: string, read: (past: GraphOps) => Promise<T>): Promise<T> {
    await using past = await graphAsOf(this.store, asOf);
    return await read(new GraphOps(this.store, past.db));
  }

  async #append(events: NewEvent[]): Promise<void> {
    if (events.length) await this.store.append(events);
  }

  async #existing(names: string[]): Promise<Set<string>> {
    return new Set(await existingEntities(this.db, names));
  }

  async #requireEntities(names: string[]): Promise<void> {
    const known = await this.#existing(names);
    const missing = names.filter((n) => !known.has(n));
    if (missing.length) {
      throw new UserError(
        `no entity named ${missing.join(", ")}; nothing was changed (create it first: ` +
          "create_entities, or `cairn graph add-entity NAME --type TYPE`)",
      );
    }
  }

  /**
   * The entities with their relations: every relation with at least one end
   * among them, as the official memory server now answers, so an agent can
   * walk on from what it opened.
   */
  async #withRelations(
    entities: EntityRecord[],
  ): Promise<Omit<GraphPage, "more">> {
    return {
      entities,
      ...await this.#relations("either", entities),
    };
  }

  /** How many relations start from each of the entities, by name. */
  async #outgoing(entities: EntityRecord[]): Promise<Map<string, number>> {
    if (entities.length === 0) return new Map();
    return await outgoingRelationCounts(this.db, entities.map((e) => e.name));
  }

  /**
   * The relations of the entities (those starting from one, or with either
   * end among them), at most {@linkcode MAX_PAGE_RELATIONS}, and how many it left out.
   */
  async #relations(
    ends: RelationEnds,
    entities: EntityRecord[],
  ): Promise<Pick<GraphPage, "relations" | "relationsOmitted">> {
    if (entities.length === 0) return { relations: [] };
    const names = entities.map((e) => e.name);
    const relations = await relationsOf(this.db, names, ends, MAX_PAGE_RELATIONS);
    if (relations.length < MAX_PAGE_RELATIONS) return { relations };
    const omitted = await relationCountOf(this.db, names, ends) - relations.length;
    return omitted > 0 ? { relations, relationsOmitted: omitted } : { relations };
  }
}

/**
 * The first entities whose relations fit in a page ({@linkcode MAX_PAGE_RELATIONS}),
 * and always the first one, so that a page never stays empty.
 */
function withinRelationBudget(
  entities: EntityRecord[],
  relationsOf: ReadonlyMap<string, number>,
): EntityRecord[] {
  let relations = 0;
  const kept: EntityRecord[] = [];
  for (const entity of entities) {
    relations += relationsOf.get(entity.name) ?? 0;
    if (kept.length > 0 && relations > MAX_PAGE_RELATIONS) break;
    kept.push(entity);
  }
  return kept;
}
