import assert from "node:assert/strict";
import { join } from "node:path";
import { BlobStore } from "../../events/blobs.ts";
import type { NewEvent } from "../../events/schema.ts";
import { GraphProjection } from "../../projections/graph/graph_projection.ts";
import { entityPage, relationsOf } from "../../projections/graph/queries/entities.ts";
import { TextProjection } from "../../projections/text.ts";
import { contractEvents } from "./contract_events.ts";
import { tempDir } from "../helpers.ts";
import { ids, stored } from "./text_events.ts";

const ENTITIES = { sources: ["entity" as const], limit: 10 };

const created = (
  name: string,
  type: string,
  observations: string[],
  project: string | null = null,
) =>
  ({
    type: "entity.created",
    v: 1,
    data: { name, entity_type: type, observations, project },
  }) satisfies NewEvent;

const relation = (kind: "created" | "deleted", from: string, type: string, to: string) =>
  ({ type: `relation.${kind}`, v: 1, data: { from, to, relation_type: type } }) satisfies NewEvent;

async function opened(dir: string) {
  return await TextProjection.open(join(dir, "text"), new BlobStore(join(dir, "blobs")));
}

Deno.test("an entity is found by its name, its observations and its relations, in any project", async () => {
  await using dir = await tempDir();
  const projection = await opened(dir.path);
  await projection.apply(stored(
    created("Ada", "person", ["Prefers Go over Python"], "billing"),
    created("billing", "service", ["Charges customers monthly"]),
    relation("created", "Ada", "maintains", "billing"),
  ));
  assert.deepEqual(ids(projection, "who prefers go", ENTITIES), ["entity:Ada"]);
  assert.deepEqual(ids(projection, "maintains", ENTITIES).sort(), ["entity:Ada", "entity:billing"]);
  assert.deepEqual(
    ids(projection, "go python", { ...ENTITIES, project: "elsewhere" }),
    ["entity:Ada"],
    "entities are searched in every project, as the graph tools search them",
  );
  assert.deepEqual(projection.entity("billing"), {
    name: "billing",
    entityType: "service",
    observations: ["Charges customers monthly"],
    relations: [["Ada", "maintains", "billing"]],
  });
  await projection.close();
});

Deno.test("an entity's document follows its observations, relations, type and deletion", async () => {
  await using dir = await tempDir();
  const projection = await opened(dir.path);
  await projection.apply(stored(
    created("Ada", "person", ["Prefers Go"]),
    {
      type: "observations.added",
      v: 1,
      data: { entity: "Ada", observations: ["Writes Rust", "Prefers Go"] },
    },
    { type: "observations.deleted", v: 1, data: { entity: "Ada", observations: ["Prefers Go"] } },
    created("Ada", "concept", ["Lives in Lyon"]),
    relation("created", "Ada", "maintains", "billing"),
    relation("created", "Ada", "maintains", "billing"),
    relation("created", "Grace", "mentors", "Ada"),
    { type: "observations.added", v: 1, data: { entity: "nobody", observations: ["ghost"] } },
  ));
  assert.deepEqual(projection.entity("Ada"), {
    name: "Ada",
    entityType: "person",
    observations: ["Writes Rust", "Lives in Lyon"],
    relations: [["Ada", "maintains", "billing"], ["Grace", "mentors", "Ada"]],
  }, "created again as a concept it keeps its type; a relation given twice is one");
  assert.equal(projection.entity("billing")?.entityType, "concept", "a relation's end is made");
  assert.equal(projection.entity("nobody"), undefined, "observations of no entity make none");
  assert.deepEqual(ids(projection, "go", ENTITIES), [], "a deleted observation is not found");

  await projection.apply(stored(relation("deleted", "Ada", "maintains", "billing")));
  assert.deepEqual(projection.entity("billing")?.relations, []);
  assert.equal(projection.hasFacts("billing"), false, "a name alone is no fact");
  assert.deepEqual(ids(projection, "maintains", ENTITIES), []);

  await projection.apply(stored({ type: "entity.deleted", v: 1, data: { name: "Ada" } }));
  assert.equal(projection.entity("Ada"), undefined);
  assert.deepEqual(projection.entity("Grace")?.relations, [], "the other end loses the relation");
  assert.deepEqual(ids(projection, "mentors rust lyon", ENTITIES), []);
  await projection.close();
});

Deno.test("entities and relations a memory names are documents too, and survive reopening", async () => {
  await using dir = await tempDir();
  const projection = await opened(dir.path);
  await projection.apply(stored({
    type: "memory.remembered",
    v: 1,
    data: {
      id: "m1",
      project: "p",
      kind: "fact",
      content: "Ada hands billing over to Grace",
      tags: [],
      entities: ["Ada"],
      relations: [{ from: "Grace", to: "billing", relation_type: "owns_now" }],
    },
  }));
  await projection.close();
  const again = await opened(dir.path);
  assert.equal(again.entity("Ada")?.entityType, "concept");
  assert.equal(again.hasFacts("Ada"), false);
  assert.deepEqual(again.entity("Grace")?.relations, [["Grace", "owns_now", "billing"]]);
  assert.deepEqual(ids(again, "owns now", ENTITIES).sort(), ["entity:Grace", "entity:billing"]);
  await again.close();
});

Deno.test("the lexical index holds every entity as the graph does, over every kind of event", async () => {
  await using dir = await tempDir();
  const { events, texts } = await contractEvents();
  const blobs = new BlobStore(join(dir.path, "blobs"));
  await blobs.putMany([...texts.values()]);
  const text = await TextProjection.open(join(dir.path, "text"), blobs);
  const graph = await GraphProjection.open(join(dir.path, "graph"));
  try {
    await text.apply(events);
    await graph.apply(events);
    const entities = await entityPage(graph.database, undefined, 0, 1000);
    assert.ok(entities.length >= 3, "the contract's story has entities");
    for (const entity of entities) {
      const relations = await relationsOf(graph.database, [entity.name], "either", 1000);
      const held = text.entity(entity.name);
      assert.deepEqual(
        held && { ...held, relations: [...held.relations].sort() },
        {
          name: entity.name,
          entityType: entity.entityType,
          observations: entity.observations,
          relations: relations.map((r) => [r.from, r.relationType, r.to]).sort(),
        },
      );
    }
    assert.equal(text.counts().entity, entities.length, "no entity the graph lacks");
  } finally {
    await text.close();
    await graph.close();
  }
});

Deno.test("each fact of an entity is searched on its own: many others do not drown the one that matches", async () => {
  await using dir = await tempDir();
  const projection = await opened(dir.path);
  const fillers = Array.from({ length: 40 }, (_, i) => `Filler fact number ${i} about lunch`);
  await projection.apply(stored(
    created("HR", "team", [...fillers, "The payroll export runs on the 25th"]),
    created("Finance", "team", ["The payroll export runs on the 25th"]),
  ));
  const hits = projection.search("when does the payroll export run", ENTITIES);
  assert.deepEqual(hits.map((hit) => hit.id).sort(), ["Finance", "HR"], "each entity once");
  assert.ok(Math.abs(hits[0]!.share - hits[1]!.share) < 1e-9, JSON.stringify(hits));
  await projection.close();
});
