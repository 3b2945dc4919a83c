import assert from "node:assert/strict";
import { MemoryLog } from "../../events/memory_log.ts";
import type { EventOf, NewEvent } from "../../events/schema.ts";
import { MemoryCheckpoints } from "../../projections/checkpoints.ts";
import { fileKey, symbolKey } from "../../projections/graph/code_graph.ts";
import { contentKey, GraphProjection } from "../../projections/graph/graph_projection.ts";
import {
  chunksById,
  chunksHoldingLine,
  chunksOfFiles,
  referencesTo,
} from "../../projections/graph/queries/code.ts";
import {
  entityCount,
  entityPage,
  existingEntities,
  observationsOf,
  outgoingRelationCounts,
  relationCount,
  relationCountOf,
  relationsOf,
} from "../../projections/graph/queries/entities.ts";
import {
  heldExternalIds,
  listedMemoryIds,
  liveMemoryWithKey,
  memoriesById,
  memoryById,
} from "../../projections/graph/queries/memories.ts";
import { type Hop, hopLinks } from "../../projections/graph/queries/neighbourhood.ts";
import {
  compactBoundary,
  filesTouchedBy,
  neighbourTurn,
  sessionCount,
  turnKeysAt,
  turnsByKey,
  turnsTouchingFile,
  turnsTouchingHints,
} from "../../projections/graph/queries/sessions.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { filesUnder, tempDir } from "../helpers.ts";

/**
 * Text shaped like Cypher: a node pattern after MATCH, MERGE or CREATE, a
 * RETURN of a property, a call or a spliced column list, a column list
 * (`m.id AS id`), and a few clauses prose never has.
 */
const CYPHER = [
  /\b(?:MATCH|MERGE|CREATE)\s*\(\s*\w*\s*(?::\s*\w+\s*)?[{)]/,
  /\bRETURN\s+(?:DISTINCT\s+)?(?:\w+\s*[.(]|\$\{)/,
  /\b[a-z]\w*\.\w+\s+AS\s+\w+/,
  /\b(?:UNWIND\s+\$|DETACH\s+DELETE|OPTIONAL\s+MATCH|CREATE\s+(?:NODE|REL)\s+TABLE)\b/,
];

/** The lines of `source` (numbered from 1) that hold Cypher outside comments. */
function cypherLines(source: string): number[] {
  return source.split("\n").flatMap((line, i) => {
    const code = line.trimStart();
    const comment = code.startsWith("//") || code.startsWith("*") || code.startsWith("/*");
    return !comment && CYPHER.some((pattern) => pattern.test(line)) ? [i + 1] : [];
  });
}

Deno.test("cypherLines() finds the shapes of the graph's queries and leaves prose and comments", () => {
  const queries = [
    `"MATCH (m:Memory {id: $id}) RETURN m.id"`,
    "`MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE ${where}`",
    "`${match} RETURN count(r) AS n`",
    "`MATCH (m:Memory) WHERE m.id IN $ids RETURN ${COLUMNS}`",
    `"UNWIND $hints AS h"`,
    `"MERGE (e:Entity {name: $name})"`,
    `"MATCH (n) RETURN count(n) AS nodes"`,
    `"CREATE (t:Turn {key: $key})"`,
    "`m.id AS id, m.project AS project,`",
  ];
  for (const query of queries) assert.deepEqual(cypherLines(`const q = ${query};`), [1], query);
  const prose = [
    "export const FILE_MATCH_DISTANCE = 0.15;",
    "const FILE_MATCHES = 50;",
    "// MATCH (m:Memory) RETURN m.id",
    " * RETURN m.id from MATCH (m:Memory)",
    `throw new Error("press RETURN to go on; MATCH the case (or not)");`,
  ];
  assert.deepEqual(cypherLines(prose.join("\n")), []);
});

Deno.test("no Cypher is written in src/: the graph's queries live in projections/graph/queries/", async () => {
  const src = new URL("../../src", import.meta.url).pathname;
  const found: string[] = [];
  for await (const path of filesUnder(src)) {
    if (!path.endsWith(".ts")) continue;
    for (const line of cypherLines(await Deno.readTextFile(path))) {
      found.push(`src${path.slice(src.length)}:${line}`);
    }
  }
  assert.deepEqual(
    found,
    [],
    `Cypher in ${found.join(", ")}: add a named query to projections/graph/queries/ and call it`,
  );
});

const HASH = "0".repeat(64);

const entity = (name: string, type: string, observations: string[] = []): NewEvent => ({
  type: "entity.created",
  v: 1,
  data: { name, entity_type: type, observations, project: null },
});

const relation = (from: string, to: string, type: string): NewEvent => ({
  type: "relation.created",
  v: 1,
  data: { from, to, relation_type: type },
});

const memory = (
  id: string,
  content: string,
  fields: Partial<EventOf<"memory.remembered">["data"]> = {},
): NewEvent => ({
  type: "memory.remembered",
  v: 1,
  data: { id, project: "app", kind: "note", tags: [], content, ...fields },
});

const indexed = (
  project: string,
  path: string,
  chunks: Array<[id: string, name: string, kind: string, start: number, end: number]>,
  references: Array<[name: string, line: number]> = [],
): NewEvent => ({
  type: "file.indexed",
  v: 1,
  data: {
    project,
    path,
    hash: "h",
    size: 1,
    mtime_ms: 0,
    language: "python",
    chunks: chunks.map(([id, name, kind, start_line, end_line]) => ({
      id,
      name,
      kind,
      start_line,
      end_line,
      text: HASH,
    })),
    references: references.map(([name, line]) => ({ name, kind: "call" as const, line })),
  },
});

const turn = (
  session: string,
  line: number,
  project: string,
  day: number,
  mentions: Array<[path: string, tool: string]>,
  compactions?: number[],
): NewEvent => ({
  type: "turn.ingested",
  v: 1,
  data: {
    agent: "claude",
    session,
    line,
    project,
    started_at: `2026-01-0${day}T00:00:00Z`,
    provisional: false,
    text: HASH,
    mentions: mentions.map(([path, tool]) => ({ path, tool })),
    ...(compactions ? { compactions } : {}),
  },
});

/** A graph with a bit of everything: entities and relations, memories, code in two projects, sessions. */
const SCENARIO: NewEvent[] = [
  entity("Postgres", "database", ["runs on port 5432", "version 16"]),
  entity("billing service", "service"),
  entity("ledger", "service"),
  relation("billing service", "Postgres", "uses"),
  relation("ledger", "Postgres", "uses"),
  relation("billing service", "ledger", "feeds"),
  indexed("app", "src/models.py", [
    ["c1", "Session", "class", 1, 40],
    ["c2", "Session.send", "function", 12, 30],
    ["c3", "Session", "class", 41, 60],
  ], [["register_hook", 20]]),
  indexed("app", "src/hooks.py", [["c4", "register_hook", "function", 1, 8]]),
  indexed("other", "src/models.py", [["o1", "Other", "class", 1, 5]], [["register_hook", 3]]),
  indexed("other", "src/hooks.py", [["o2", "register_hook", "function", 1, 4]]),
  turn("s-abc", 1, "app", 1, [["src/models.py", "Read"], ["src/models.py", "Edit"], [
    "src/hooks.py",
    "Read",
  ]]),
  turn("s-abc", 5, "app", 2, [["src/models.py", "Edit"]], [7]),
  turn("s-abc", 9, "app", 3, []),
  turn("s-abd", 1, "other", 4, [["src/models.py", "Read"]]),
  memory("m1", "register_hook in src/models.py must stay backwards compatible", {
    kind: "decision",
    tags: ["api"],
    external_id: "x1",
  }),
  memory("m2", "The billing service writes to Postgres", { project: null, kind: "fact" }),
  memory("m3", "the ledger is retired", { external_id: "x3" }),
  { type: "memory.forgotten", v: 1, data: { id: "m3" } },
  memory("m4", "the ledger closes at noon", { valid_from: "2025-01-01", valid_to: "2025-06-30" }),
];

Deno.test("the graph's named queries answer from a graph the projection built", async (t) => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  await log.append(SCENARIO);
  const graph = await GraphProjection.open(tmp.path);
  try {
    await ProjectionRunner.open(log, [graph], new MemoryCheckpoints());
    const db = graph.database;

    await t.step("memories: by id, by text, by external id, and a listing's page", async () => {
      const m1 = await memoryById(db, "m1");
      assert.equal(m1?.content, "register_hook in src/models.py must stay backwards compatible");
      assert.equal(m1?.project, "app");
      assert.equal(m1?.kind, "decision");
      assert.deepEqual(m1?.tags, ["api"]);
      assert.equal(m1?.external_id, "x1");
      assert.equal(m1?.forgotten_at, "");
      assert.equal(await memoryById(db, "nope"), undefined);
      assert.deepEqual(
        (await memoriesById(db, ["m2", "nope", "m1"])).map((m) => m.id).sort(),
        ["m1", "m2"],
      );
      assert.deepEqual(await memoriesById(db, []), []);
      const same = await contentKey("The BILLING service   writes to Postgres");
      assert.equal((await liveMemoryWithKey(db, same, ""))?.id, "m2");
      assert.equal(await liveMemoryWithKey(db, same, "app"), undefined, "another project");
      const forgotten = await contentKey("the ledger is retired");
      assert.equal(await liveMemoryWithKey(db, forgotten, "app"), undefined, "forgotten");
      assert.deepEqual(
        (await heldExternalIds(db, ["x1", "x3", "x9"])).sort((a, b) => a.id < b.id ? -1 : 1),
        [{ project: "app", id: "x1" }, { project: "app", id: "x3" }],
      );
      const list = (filter: Parameters<typeof listedMemoryIds>[1], offset = 0, limit = 10) =>
        listedMemoryIds(db, filter, offset, limit);
      assert.deepEqual(await list({ includeForgotten: false }), ["m4", "m2", "m1"]);
      assert.deepEqual(await list({ includeForgotten: true }), ["m4", "m3", "m2", "m1"]);
      assert.deepEqual(await list({ project: "zzz", includeForgotten: false }), ["m2"]);
      assert.deepEqual(await list({ tag: "api", includeForgotten: false }), ["m1"]);
      assert.deepEqual(await list({ kind: "fact", includeForgotten: false }), ["m2"]);
      assert.deepEqual(await list({ validAt: "2026-01-01", includeForgotten: false }), [
        "m2",
        "m1",
      ]);
      assert.deepEqual(await list({ validAt: "2025-03-01", includeForgotten: false }), [
        "m4",
        "m2",
        "m1",
      ]);
      assert.deepEqual(await list({ includeForgotten: false }, 1, 1), ["m2"]);
      assert.deepEqual(await list({ includeForgotten: false }, 1_000_000_000, 10), []);
    });

    await t.step(
      "code: chunks by id, of files, holding a line, referring to a definition",
      async () => {
        assert.deepEqual(await chunksById(db, ["c2", "nope"]), [{
          id: "c2",
          project: "app",
          path: "src/models.py",
          name: "Session.send",
          kind: "function",
          start_line: 12,
          end_line: 30,
        }]);
        const models = await chunksOfFiles(db, [{ project: "app", path: "src/models.py" }]);
        assert.deepEqual(models.map((chunk) => chunk.id).sort(), ["c1", "c2", "c3"]);
        const both = await chunksOfFiles(db, [
          { project: "other", path: "src/models.py" },
          { project: "app", path: "src/hooks.py" },
        ]);
        assert.deepEqual(both.map((chunk) => chunk.id).sort(), ["c4", "o1"]);
        assert.deepEqual(await chunksOfFiles(db, []), []);
        const holding = await chunksHoldingLine(db, {
          project: "app",
          path: "src/models.py",
          line: 20,
        });
        assert.deepEqual(holding.sort((a, b) => a.size - b.size), [
          { id: "c2", size: 18 },
          { id: "c1", size: 39 },
        ]);
        // Each project's register_hook is called in its own models.py, never across projects.
        assert.deepEqual(await referencesTo(db, ["c4"], 10), [{ definition: "c4", id: "c1" }]);
        assert.deepEqual(await referencesTo(db, ["o2", "c4"], 10), [
          { definition: "c4", id: "c1" },
          { definition: "o2", id: "o1" },
        ]);
        assert.deepEqual(await referencesTo(db, ["o2", "c4"], 1), [{ definition: "c4", id: "c1" }]);
        assert.deepEqual(
          await referencesTo(db, ["c4", "c1"], 10),
          [],
          "a definition is not its own",
        );
        assert.deepEqual(await referencesTo(db, ["c2"], 10), [], "nothing calls Session.send");
        assert.deepEqual(await referencesTo(db, [], 10), []);
      },
    );

    await t.step(
      "sessions: turns, neighbours, touched files, boundaries and file histories",
      async () => {
        assert.deepEqual(await turnsByKey(db, ["s-abc:1", "nope"]), [{
          id: "s-abc:1",
          session: "s-abc",
          line: 1,
          project: "app",
          started_at: "2026-01-01T00:00:00Z",
        }]);
        assert.deepEqual((await turnKeysAt(db, "s-ab", 1)).sort(), ["s-abc:1", "s-abd:1"]);
        assert.deepEqual(await turnKeysAt(db, "s-abc", 5), ["s-abc:5"]);
        assert.equal(await neighbourTurn(db, "s-abc", 5, "before"), "s-abc:1");
        assert.equal(await neighbourTurn(db, "s-abc", 5, "after"), "s-abc:9");
        assert.equal(await neighbourTurn(db, "s-abc", 1, "before"), undefined);
        const touched = await filesTouchedBy(db, "s-abc:1");
        assert.deepEqual(touched.map((file) => file.path), [
          "src/hooks.py",
          "src/models.py",
          "src/models.py",
        ]);
        assert.deepEqual(touched.slice(1).map((file) => file.tool).sort(), ["Edit", "Read"]);
        assert.equal(await compactBoundary(db, "s-abc"), 7);
        assert.equal(await compactBoundary(db, "s-abd"), -1, "never compacted");
        assert.equal(await compactBoundary(db, "nope"), undefined);
        assert.equal(await sessionCount(db), 2);

        const history = await turnsTouchingFile(db, { path: "models.py", project: "", limit: 10 });
        assert.deepEqual(history.map((touch) => [touch.id, touch.path, touch.started]), [
          ["s-abd:1", "src/models.py", "2026-01-04T00:00:00Z"],
          ["s-abc:5", "src/models.py", "2026-01-02T00:00:00Z"],
          ["s-abc:1", "src/models.py", "2026-01-01T00:00:00Z"],
        ]);
        assert.deepEqual(history[2]!.tools.toSorted(), ["Edit", "Read"]);
        const absolute = await turnsTouchingFile(db, {
          path: "/home/me/app/src/models.py",
          project: "app",
          limit: 1,
        });
        assert.deepEqual(absolute.map((touch) => touch.id), ["s-abc:5"]);

        assert.deepEqual(
          await turnsTouchingHints(db, {
            hints: ["models.py", "src/hooks.py"],
            project: "app",
            limit: 10,
          }),
          [{ id: "s-abc:1", hints: 2, files: 2 }, { id: "s-abc:5", hints: 1, files: 1 }],
        );
        assert.deepEqual(
          (await turnsTouchingHints(db, { hints: ["src"], project: "", limit: 2 })).map((m) =>
            m.id
          ),
          ["s-abc:1", "s-abd:1"],
          "most files first, then newest",
        );
        assert.deepEqual(await turnsTouchingHints(db, { hints: [], project: "", limit: 10 }), []);
      },
    );

    await t.step(
      "knowledge graph: entities a page at a time, observations and relations",
      async () => {
        assert.deepEqual(await existingEntities(db, ["Postgres", "nope"]), ["Postgres"]);
        assert.deepEqual(
          await observationsOf(db, ["Postgres", "ledger"]),
          new Map([["Postgres", ["runs on port 5432", "version 16"]], ["ledger", []]]),
        );
        assert.equal(await entityCount(db), 3);
        const names = async (page: Promise<Array<{ name: string }>>) =>
          (await page).map((e) => e.name);
        assert.deepEqual(await names(entityPage(db, undefined, 0, 10)), [
          "Postgres",
          "billing service",
          "ledger",
        ]);
        assert.deepEqual(await names(entityPage(db, undefined, 1, 1)), ["billing service"]);
        assert.deepEqual(await entityPage(db, undefined, 1_000_000_000, 10), []);
        assert.deepEqual(await entityPage(db, ["ledger", "Postgres", "nope"], 0, 100), [
          {
            name: "Postgres",
            entityType: "database",
            observations: ["runs on port 5432", "version 16"],
          },
          { name: "ledger", entityType: "service", observations: [] },
        ]);
        const uses = { from: "billing service", to: "Postgres", relationType: "uses" };
        assert.equal(await relationCount(db, uses), 1);
        assert.equal(await relationCount(db, { ...uses, relationType: "feeds" }), 0);
        assert.deepEqual(
          await outgoingRelationCounts(db, ["billing service", "ledger", "Postgres"]),
          new Map([["billing service", 2], ["ledger", 1]]),
        );
        assert.deepEqual(await relationsOf(db, ["ledger"], "from", 250), [
          { from: "ledger", to: "Postgres", relationType: "uses" },
        ]);
        assert.deepEqual(await relationsOf(db, ["ledger"], "either", 250), [
          { from: "billing service", to: "ledger", relationType: "feeds" },
          { from: "ledger", to: "Postgres", relationType: "uses" },
        ]);
        assert.deepEqual(await relationsOf(db, ["Postgres"], "either", 1), [uses]);
        assert.equal(await relationCountOf(db, ["Postgres"], "either"), 2);
        assert.equal(await relationCountOf(db, ["Postgres"], "from"), 0);
      },
    );

    await t.step(
      "neighbourhood: each hop's links, forgotten memories left out, capped",
      async () => {
        const links = async (hop: Hop, ids: string[], cap = 2000) =>
          (await hopLinks(db, hop, ids, cap)).map(({ a, b }) => `${a} ${b}`).sort();
        const models = fileKey("app", "src/models.py");
        const hook = symbolKey("app", "register_hook");
        assert.deepEqual(await links({ from: "memory", to: "entity" }, ["m2"]), [
          "m2 Postgres",
          "m2 billing service",
        ]);
        assert.deepEqual(await links({ from: "memory", to: "file" }, ["m1"]), [`m1 ${models}`]);
        assert.deepEqual(await links({ from: "memory", to: "symbol" }, ["m1"]), [`m1 ${hook}`]);
        assert.deepEqual(await links({ from: "code", to: "file" }, ["c4"]), [
          `c4 ${fileKey("app", "src/hooks.py")}`,
        ]);
        assert.deepEqual(await links({ from: "turn", to: "file" }, ["s-abc:5"]), [
          `s-abc:5 ${models}`,
        ]);
        assert.deepEqual(await links({ from: "entity", to: "entity" }, ["ledger"]), [
          "ledger Postgres",
          "ledger billing service",
        ]);
        assert.deepEqual(await links({ from: "entity", to: "memory" }, ["ledger"]), ["ledger m4"]);
        assert.deepEqual(await links({ from: "file", to: "code" }, [models]), [
          `${models} c1`,
          `${models} c2`,
          `${models} c3`,
        ]);
        assert.deepEqual(await links({ from: "file", to: "turn" }, [models]), [
          `${models} s-abc:1`,
          `${models} s-abc:1`,
          `${models} s-abc:5`,
        ]);
        assert.deepEqual(await links({ from: "file", to: "memory" }, [models]), [`${models} m1`]);
        assert.deepEqual(await links({ from: "symbol", to: "code" }, [hook]), [
          `${hook} c1`,
          `${hook} c4`,
        ]);
        assert.deepEqual(await links({ from: "symbol", to: "memory" }, [hook]), [`${hook} m1`]);
        assert.equal((await links({ from: "file", to: "code" }, [models], 1)).length, 1);
        assert.deepEqual(await links({ from: "memory", to: "entity" }, []), []);
        await assert.rejects(
          () => hopLinks(db, { from: "file", to: "code" }, [models], 1.5),
          RangeError,
        );
      },
    );
  } finally {
    await graph.close();
  }
});
