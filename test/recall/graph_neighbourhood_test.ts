import assert from "node:assert/strict";
import { MemoryLog } from "../../events/memory_log.ts";
import type { NewEvent } from "../../events/schema.ts";
import { MemoryCheckpoints } from "../../projections/checkpoints.ts";
import { GraphProjection } from "../../projections/graph/graph_projection.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { neighbourhood } from "../../src/recall/graph_neighbourhood.ts";
import { remembered, tempDir } from "../helpers.ts";

Deno.test("neighbourhood() walks a memory seed → entities → related entities → other memories", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  const entity = (name: string): NewEvent => ({
    type: "entity.created",
    v: 1,
    data: { name, entity_type: "service", observations: [], project: null },
  });
  await log.append([
    entity("gateway"),
    entity("auth"),
    {
      type: "relation.created",
      v: 1,
      data: { from: "gateway", to: "auth", relation_type: "calls" },
    },
    remembered("seed", "The gateway times out after 30 s."),
    remembered("near", "The gateway retries twice."),
    remembered("far", "auth tokens live 1 hour."),
    remembered("gone", "The gateway used nginx."),
    { type: "memory.forgotten", v: 1, data: { id: "gone" } },
    remembered("alone", "Unrelated note."),
  ]);
  const graph = await GraphProjection.open(tmp.path);
  try {
    await ProjectionRunner.open(log, [graph], new MemoryCheckpoints());
    const edges = await neighbourhood(graph.database, { memory: ["seed"] });
    const set = new Set(edges.flatMap(([a, b]) => [`${a} ${b}`, `${b} ${a}`]));
    assert.ok(set.has("memory:seed entity:gateway"));
    assert.ok(set.has("entity:gateway entity:auth"));
    assert.ok(set.has("memory:near entity:gateway"));
    assert.ok(set.has("memory:far entity:auth"));
    assert.ok(
      ![...set].some((edge) => edge.includes("memory:gone") || edge.includes("memory:alone")),
    );
    assert.deepEqual(await neighbourhood(graph.database, {}), []);
  } finally {
    await graph.close();
  }
});

Deno.test("neighbourhood() links code and sessions through the files they share", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  const hash = "0".repeat(64);
  await log.append([
    {
      type: "file.indexed",
      v: 1,
      data: {
        project: "app",
        path: "ci.yml",
        hash: "h",
        size: 1,
        mtime_ms: 0,
        language: "yaml",
        references: [],
        chunks: [{
          id: "ci",
          name: "jobs",
          kind: "section",
          start_line: 1,
          end_line: 9,
          text: hash,
        }],
      },
    },
    {
      type: "turn.ingested",
      v: 1,
      data: {
        agent: "claude",
        session: "s",
        line: 0,
        project: "app",
        started_at: "2026-01-01T00:00:00Z",
        provisional: false,
        text: hash,
        mentions: [{ path: "ci.yml", tool: "Edit" }],
      },
    },
  ]);
  const graph = await GraphProjection.open(tmp.path);
  try {
    await ProjectionRunner.open(log, [graph], new MemoryCheckpoints());
    const fromTurn = new Set(
      (await neighbourhood(graph.database, { turn: ["s:0"] })).map(([a, b]) => `${a} ${b}`),
    );
    assert.ok(fromTurn.has("turn:s:0 file:app\0ci.yml"));
    assert.ok(
      fromTurn.has("file:app\0ci.yml code:ci"),
      "the turn reaches the chunk through the file",
    );
    const fromCode = new Set(
      (await neighbourhood(graph.database, { code: ["ci"] })).map(([a, b]) => `${a} ${b}`),
    );
    assert.ok(
      fromCode.has("file:app\0ci.yml turn:s:0"),
      "the chunk reaches the turn that touched its file",
    );
    const codeOnly = (await neighbourhood(graph.database, { code: ["ci"] }, ["code"]))
      .map(([a, b]) => `${a} ${b}`);
    assert.ok(codeOnly.includes("file:app\0ci.yml code:ci"));
    assert.ok(!codeOnly.some((edge) => edge.includes("turn:")), "turns not asked for, not fetched");
    const files = {
      fileOf: (id: string) => id === "ci" ? "app\0ci.yml" : undefined,
      chunksOf: (file: string) => file === "app\0ci.yml" ? ["ci"] : [],
    };
    const fromMemory = await neighbourhood(graph.database, { code: ["ci"] }, undefined, files);
    assert.deepEqual(
      new Set(fromMemory.map(([a, b]) => `${a} ${b}`)),
      fromCode,
      "chunk ↔ file hops answered from memory give the graph's edges",
    );
  } finally {
    await graph.close();
  }
});
