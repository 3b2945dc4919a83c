import assert from "node:assert/strict";
import { join } from "node:path";
import type { NewEvent } from "../../events/schema.ts";
import { type Cairn, openCairn } from "../../src/service/cairn.ts";
import { UserError } from "../../src/errors.ts";
import {
  type GraphOps,
  type GraphPage,
  MAX_PAGE_RELATIONS,
  type RelationRecord,
} from "../../src/service/graph_ops.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";
import { collect, tempDir } from "../helpers.ts";

Deno.test("GraphOps does what the official memory server does, as events, with paginated reads", async () => {
  await using tmp = await tempDir();
  const cairn = await openCairn(tmp.path);
  try {
    const g = cairn.entities;
    const created = await g.createEntities([
      { name: "Ada", entityType: "person", observations: ["maintains billing"] },
      { name: "billing", entityType: "service" },
      { name: "Ada", entityType: "robot", observations: ["reviews migrations"] },
    ]);
    assert.deepEqual(created.map((e) => [e.name, e.entityType, e.observations]), [
      ["Ada", "person", ["maintains billing", "reviews migrations"]],
      ["billing", "service", []],
    ], "a name given twice is one entity, with the observations of both");
    assert.deepEqual(
      await g.createEntities([{ name: "Ada", entityType: "person" }]),
      [],
      "known entities are skipped",
    );
    assert.equal(
      (await g.createRelations([{ from: "Ada", to: "billing", relationType: "maintains" }])).length,
      1,
    );
    assert.equal(
      (await g.createRelations([{ from: "Ada", to: "billing", relationType: "maintains" }])).length,
      0,
    );
    assert.deepEqual(
      await g.addObservations([{
        entityName: "Ada",
        contents: ["maintains billing", "on call in March"],
      }]),
      [
        { entityName: "Ada", addedObservations: ["on call in March"] },
      ],
    );
    await assert.rejects(
      () => g.addObservations([{ entityName: "Bob", contents: ["x"] }]),
      UserError,
    );

    const opened = await g.openNodes(["Ada", "billing"]);
    assert.deepEqual(opened.entities[0], {
      name: "Ada",
      entityType: "person",
      observations: ["maintains billing", "reviews migrations", "on call in March"],
    });
    assert.deepEqual(opened.relations, [{ from: "Ada", to: "billing", relationType: "maintains" }]);
    assert.deepEqual((await g.searchNodes("MARCH")).entities.map((e) => e.name), ["Ada"]);
    const first = await g.readGraph({ limit: 1 });
    assert.deepEqual([first.entities.length, first.more], [1, 1]);
    assert.deepEqual((await g.readGraph({ offset: 1, limit: 1 })).more, 0);

    await g.deleteObservations([{ entityName: "Ada", contents: ["on call in March"] }]);
    await g.deleteRelations([{ from: "Ada", to: "billing", relationType: "maintains" }]);
    assert.deepEqual((await g.openNodes(["Ada", "billing"])).relations, []);
    await g.deleteEntities(["billing", "nobody"]);
    assert.deepEqual((await g.readGraph()).entities.map((e) => e.name), ["Ada"]);
    const types = (await collect(cairn.store.log.read())).map((e) => e.type);
    assert.deepEqual(types, [
      "entity.created",
      "entity.created",
      "relation.created",
      "observations.added",
      "observations.deleted",
      "relation.deleted",
      "entity.deleted",
    ]);
  } finally {
    await cairn.close();
  }
});

async function withGraph(test: (cairn: Cairn) => Promise<void>): Promise<void> {
  await using tmp = await tempDir();
  const cairn = await openCairn(tmp.path, { embedder: new FakeEmbedder() });
  try {
    await test(cairn);
  } finally {
    await cairn.close();
  }
}

/** Every page of the graph, following the cursor each page implies. */
async function allPages(graph: GraphOps, limit: number): Promise<GraphPage[]> {
  const pages: GraphPage[] = [];
  let offset = 0;
  do {
    pages.push(await graph.readGraph({ offset, limit }));
    offset += pages.at(-1)!.entities.length;
  } while (pages.at(-1)!.more > 0);
  return pages;
}

const relation = (from: string, to: string): NewEvent => ({
  type: "relation.created",
  v: 1,
  data: { from, to, relation_type: "uses" },
});

const key = (r: RelationRecord) => `${r.from} ${r.relationType} ${r.to}`;

Deno.test("GraphOps.readGraph() lists each relation once, on the page of the entity it starts from", () =>
  withGraph(async (cairn) => {
    const g = cairn.entities;
    await g.createEntities(
      ["api", "billing", "cache"].map((name) => ({ name, entityType: "service" })),
    );
    await g.createRelations([
      { from: "api", to: "cache", relationType: "reads" },
      { from: "cache", to: "api", relationType: "warms" },
    ]);
    const [first, second, ...rest] = await allPages(g, 2);
    assert.deepEqual(first, {
      entities: [
        { name: "api", entityType: "service", observations: [] },
        { name: "billing", entityType: "service", observations: [] },
      ],
      relations: [{ from: "api", to: "cache", relationType: "reads" }],
      more: 1,
    });
    assert.deepEqual(second, {
      entities: [{ name: "cache", entityType: "service", observations: [] }],
      relations: [{ from: "cache", to: "api", relationType: "warms" }],
      more: 0,
    });
    assert.deepEqual(rest, []);
    assert.deepEqual(
      (await g.openNodes(["api", "billing"])).relations,
      [
        { from: "api", to: "cache", relationType: "reads" },
        { from: "cache", to: "api", relationType: "warms" },
      ],
      "open_nodes answers every relation with an end among the entities opened",
    );
    assert.deepEqual((await g.openNodes(["billing"])).relations, []);
    assert.deepEqual(
      (await g.searchNodes("cache")).relations.map(key),
      ["api reads cache", "cache warms api"],
    );
  }));

Deno.test("GraphOps.readGraph() stops a page early rather than list too many relations, and says what one entity leaves out", () =>
  withGraph(async (cairn) => {
    const targets = (count: number) =>
      Array.from({ length: count }, (_, i) => `t${String(i).padStart(3, "0")}`);
    const hubs = { "a-hub": 150, "b-hub": 150, "c-hub": MAX_PAGE_RELATIONS + 10 };
    await cairn.store.append(
      Object.entries(hubs).flatMap(([hub, count]) => targets(count).map((t) => relation(hub, t))),
    );
    const pages = await allPages(cairn.entities, 50);
    assert.deepEqual(pages.slice(0, 4).map((page) => page.entities.map((e) => e.name)), [
      ["a-hub"],
      ["b-hub"],
      ["c-hub"],
      targets(50),
    ]);
    assert.deepEqual(pages.map((page) => page.relations.length).slice(0, 3), [
      150,
      150,
      MAX_PAGE_RELATIONS,
    ]);
    assert.deepEqual(pages.map((page) => page.relationsOmitted ?? 0).slice(0, 4), [0, 0, 10, 0]);
    const listed = pages.flatMap((page) => page.relations.map(key));
    assert.equal(new Set(listed).size, listed.length, "no relation shows twice");
    assert.equal(listed.length, 150 + 150 + MAX_PAGE_RELATIONS);
    const names = pages.flatMap((page) => page.entities.map((e) => e.name));
    assert.equal(names.length, 3 + MAX_PAGE_RELATIONS + 10, "every entity shows once");
  }));

Deno.test("GraphOps reads the graph as it was at a past moment, and leaves nothing of that behind", () =>
  withGraph(async (cairn) => {
    const g = cairn.entities;
    await g.createEntities([
      { name: "api", entityType: "service", observations: ["written in Go"] },
      { name: "cache", entityType: "service" },
    ]);
    await g.createRelations([{ from: "api", to: "cache", relationType: "reads" }]);
    await cairn.memories.remember({ content: "The api reads through the cache", project: null });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const then = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await g.deleteObservations([{ entityName: "api", contents: ["written in Go"] }]);
    await g.addObservations([{ entityName: "api", contents: ["rewritten in Rust"] }]);
    await g.deleteEntities(["cache"]);
    await g.createEntities([{ name: "queue", entityType: "service" }]);

    const past = await g.openNodes(["api", "cache", "queue"], { as_of: then });
    assert.deepEqual(past.entities, [
      { name: "api", entityType: "service", observations: ["written in Go"] },
      { name: "cache", entityType: "service", observations: [] },
    ]);
    assert.deepEqual(past.relations, [{ from: "api", to: "cache", relationType: "reads" }]);
    assert.deepEqual(
      (await g.searchNodes("go", { as_of: then })).entities.map((e) => e.name),
      ["api"],
    );
    assert.deepEqual((await g.searchNodes("go")).entities, [], "today the api is in Rust");
    const read = await g.readGraph({ limit: 1, as_of: then });
    assert.deepEqual([read.entities.map((e) => e.name), read.more], [["api"], 1]);
    assert.deepEqual(
      (await g.readGraph()).entities.map((e) => e.name),
      ["api", "queue"],
      "today's graph is untouched",
    );
    assert.deepEqual(
      (await g.readGraph({ as_of: "2001-01-01" })).entities,
      [],
      "before anything was known",
    );
    await assert.rejects(
      g.openNodes(["api"], { as_of: "last tuesday" }),
      (error: Error) => error instanceof UserError && /not an ISO 8601 date/.test(error.message),
    );
    const scratch = join(cairn.store.dir, "tmp");
    assert.deepEqual(
      [...Deno.readDirSync(scratch)],
      [],
      "the graph of the past is deleted after the read",
    );
  }));
