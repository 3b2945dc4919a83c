import assert from "node:assert/strict";
import { join } from "node:path";
import { planCompaction } from "../../events/compaction.ts";
import { MemoryLog } from "../../events/memory_log.ts";
import type { NewEvent, StoredEvent } from "../../events/schema.ts";
import { MemoryCheckpoints } from "../../projections/checkpoints.ts";
import { GraphProjection } from "../../projections/graph/graph_projection.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { collect, remembered, tempDir } from "../helpers.ts";

const HASH = "0".repeat(64);

function indexed(
  path: string,
  chunks: Array<[string, string, number, number]>,
  refs: Array<[string, number]> = [],
): NewEvent {
  return {
    type: "file.indexed",
    v: 1,
    data: {
      project: "app",
      path,
      hash: "h",
      size: 1,
      mtime_ms: 0,
      language: "python",
      chunks: chunks.map(([id, name, start, end]) => ({
        id,
        name,
        kind: "function",
        start_line: start,
        end_line: end,
        text: HASH,
      })),
      references: refs.map(([name, line]) => ({ name, kind: "call" as const, line })),
    },
  };
}

Deno.test("GraphProjection puts code in the graph: file → chunk → symbol, references, turns, and memories that name them", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  await log.append([
    indexed("src/models.py", [["c1", "Request.register_hook", 1, 10], [
      "c2",
      "Session.send",
      12,
      30,
    ]], [["register_hook", 20]]),
    indexed("src/hooks.py", [["c3", "dispatch_hook", 1, 8]]),
    {
      type: "turn.ingested",
      v: 1,
      data: {
        agent: "claude",
        session: "s1",
        line: 3,
        project: "app",
        started_at: "2026-01-01T00:00:00Z",
        provisional: false,
        text: HASH,
        mentions: [{ path: "src/hooks.py", tool: "Edit" }],
      },
    },
    remembered("m1", "register_hook in src/models.py must stay backwards compatible", "app"),
  ]);
  const graph = await GraphProjection.open(tmp.path);
  const runner = await ProjectionRunner.open(log, [graph], new MemoryCheckpoints());
  const rows = (query: string) =>
    graph.database.run(query).then((r) => r.map((row) => Object.values(row).join(" ")));
  try {
    assert.deepEqual(
      await rows("MATCH (f:File)-[:CONTAINS]->(c:Chunk) RETURN f.path, c.id ORDER BY c.id"),
      [
        "src/models.py c1",
        "src/models.py c2",
        "src/hooks.py c3",
      ],
    );
    assert.deepEqual(await rows("MATCH (c:Chunk)-[:REFERS]->(s:Symbol) RETURN c.id, s.name"), [
      "c2 register_hook",
    ]);
    assert.deepEqual(
      await rows("MATCH (c:Chunk)-[:DEFINES]->(s:Symbol {name: 'register_hook'}) RETURN c.id"),
      ["c1"],
    );
    assert.deepEqual(
      await rows("MATCH (t:Turn)-[r:TOUCHED]->(f:File) RETURN t.key, r.tool, f.path"),
      ["s1:3 Edit src/hooks.py"],
    );
    assert.deepEqual(
      await rows(
        "MATCH (m:Memory {id: 'm1'})-[:MENTIONS]->(x) RETURN coalesce(x.path, x.name) AS t ORDER BY t",
      ),
      ["register_hook", "src/models.py"],
    );

    await log.append([
      indexed("src/models.py", [["c1", "Request.register_hook", 1, 10]]),
      { type: "file.removed", v: 1, data: { project: "app", path: "src/hooks.py" } },
    ]);
    await runner.catchUp();
    assert.deepEqual(
      await rows("MATCH (c:Chunk) RETURN c.id ORDER BY c.id"),
      ["c1"],
      "re-indexing replaced the chunks",
    );
    assert.deepEqual(await rows("MATCH (f:File) RETURN f.path ORDER BY f.path"), [
      "src/hooks.py",
      "src/models.py",
    ], "a touched file stays");
    const built = await graph.digest();
    await graph.apply(await collect(log.read()));
    assert.equal(await graph.digest(), built);
    await runner.rebuild();
    assert.equal(await graph.digest(), built);
  } finally {
    await runner.close();
  }
});

Deno.test("GraphProjection links a memory to the code and entities it names that appear after it", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  await log.append([
    remembered("m1", "register_hook in src/models.py must stay backwards compatible", "app"),
    remembered("m2", "Ask the Billing Team before touching parse_invoice", "other"),
    remembered("g1", "hooks.py is where every callback goes", null),
  ]);
  const graph = await GraphProjection.open(tmp.path);
  const runner = await ProjectionRunner.open(log, [graph], new MemoryCheckpoints());
  const mentioned = (id: string) =>
    graph.database.run(
      "MATCH (m:Memory {id: $id})-[:MENTIONS]->(x) RETURN coalesce(x.path, x.name) AS t ORDER BY t",
      { id },
    ).then((rows) => rows.map((row) => row.t as string));
  try {
    assert.deepEqual(await mentioned("m1"), [], "nothing to link to yet");
    await log.append([
      indexed("src/models.py", [["c1", "Request.register_hook", 1, 10]], [["parse_invoice", 5]]),
      indexed("lib/hooks.py", [["c2", "dispatch", 1, 4]]),
      {
        type: "entity.created",
        v: 1,
        data: { name: "Billing Team", entity_type: "team", observations: [], project: null },
      },
    ]);
    await runner.catchUp();
    assert.deepEqual(await mentioned("m1"), ["register_hook", "src/models.py"]);
    assert.deepEqual(
      await mentioned("m2"),
      ["Billing Team"],
      "parse_invoice is app's, and m2 is another project's memory",
    );
    assert.deepEqual(await mentioned("g1"), ["lib/hooks.py"], "a global memory links any project");

    const built = await graph.digest();
    await runner.rebuild();
    assert.equal(await graph.digest(), built, "a replay links the same");
    await log.append([
      { type: "file.removed", v: 1, data: { project: "app", path: "src/models.py" } },
      indexed("src/models.py", [["c3", "Request.register_hook", 1, 12]]),
    ]);
    await runner.catchUp();
    assert.deepEqual(await mentioned("m1"), ["register_hook", "src/models.py"], "relinked");
  } finally {
    await runner.close();
  }
});

Deno.test("GraphProjection applies a run of file events in one go exactly as one by one", async () => {
  const removed = (path: string): NewEvent => ({
    type: "file.removed",
    v: 1,
    data: { project: "app", path },
  });
  const events: NewEvent[] = [
    indexed("a.py", [["a1", "A.run", 1, 5]], [["helper", 3]]),
    indexed("b.py", [["b1", "helper", 1, 4]]),
    indexed("c.py", [["c1", "old", 1, 2]]),
    // In the same batch: a.py re-indexed, b.py removed then back, c.py removed (a rename to d.py).
    indexed("a.py", [["a2", "A.run", 1, 6], ["a3", "A.stop", 7, 9]], [["helper", 8]]),
    removed("b.py"),
    indexed("b.py", [["b2", "helper", 1, 5]]),
    removed("c.py"),
    indexed("d.py", [["d1", "old", 1, 2]]),
    remembered("m1", "helper in b.py is slow", "app"),
    removed("a.py"),
    // A file without chunks, and one whose references repeat, after files without references.
    indexed("e.py", []),
    indexed("f.py", [["f1", "F.go", 1, 3]], [["helper", 2], ["helper", 2], ["other", 3]]),
  ];
  const digests: string[] = [];
  for (const batchSize of [1, events.length]) {
    await using tmp = await tempDir();
    const graph = await GraphProjection.open(tmp.path);
    try {
      const stored = events.map((event, i) => ({
        ...event,
        seq: i + 1,
        ts: "2026-01-01T00:00:00Z",
      }));
      for (let at = 0; at < stored.length; at += batchSize) {
        await graph.apply(stored.slice(at, at + batchSize));
      }
      const rows = await graph.database.run(
        "MATCH (f:File)-[:CONTAINS]->(c:Chunk) RETURN f.path AS path, c.id AS id ORDER BY id",
      );
      assert.deepEqual(rows.map((row) => `${row.path} ${row.id}`), [
        "b.py b2",
        "d.py d1",
        "f.py f1",
      ]);
      const refs = await graph.database.run(
        "MATCH (c:Chunk)-[:REFERS]->(s:Symbol) RETURN c.id AS id, s.name AS name ORDER BY name",
      );
      assert.deepEqual(refs.map((row) => `${row.id} ${row.name}`), ["f1 helper", "f1 other"]);
      const files = await graph.database.run("MATCH (f:File) RETURN f.path AS path ORDER BY path");
      assert.deepEqual(files.map((row) => row.path), ["b.py", "d.py", "e.py", "f.py"]);
      digests.push(await graph.digest());
    } finally {
      await graph.close();
    }
  }
  assert.equal(digests[0], digests[1]);
});

Deno.test("GraphProjection re-indexes files a batch already wrote, after an event of another kind", async () => {
  await using tmp = await tempDir();
  const graph = await GraphProjection.open(tmp.path);
  try {
    const files = (version: number) =>
      Array.from({ length: 300 }, (_, f) =>
        indexed(
          `pkg/m${f}.py`,
          [[`m${f}:1-9`, `M${f}.run`, 1, 9], [`m${f}:10-19`, `M${f}.stop`, 10, 19]],
          [[`helper_${version}`, 5], [`other_${f % 7}`, 12]],
        ));
    const events = [...files(1), remembered("m1", "pkg/m1.py is slow", "app"), ...files(2)];
    await graph.apply(
      events.map((event, i) => ({ ...event, seq: i + 1, ts: "2026-01-01T00:00:00Z" })),
    );
    const [row] = await graph.database.run(
      "MATCH (c:Chunk) OPTIONAL MATCH (c)-[r:REFERS]->(s:Symbol) RETURN count(DISTINCT c) AS chunks, count(r) AS refs, collect(DISTINCT s.name) AS names",
    );
    assert.equal(row?.chunks, 600);
    assert.equal(row?.refs, 600);
    assert.deepEqual((row?.names as string[]).filter((name) => name.startsWith("helper")), [
      "helper_2",
    ]);
  } finally {
    await graph.close();
  }
});

Deno.test("GraphProjection keeps files' partners when a compacted log moves edited files after their history", async () => {
  await using tmp = await tempDir();
  const history = (pairs: Array<[string, string]>): NewEvent => ({
    type: "project.history_read",
    v: 1,
    data: {
      project: "app",
      head: "c".repeat(40),
      commits: 9,
      pairs: pairs.map(([file, partner]) => ({ file, partner, commits: 3 })),
    },
  });
  const log = new MemoryLog();
  await log.append([
    indexed("cli.py", [["app:cli.py:1-2", "parse", 1, 2]]),
    indexed("walk.py", [["app:walk.py:1-2", "walk", 1, 2]]),
    history([["cli.py", "walk.py"], ["walk.py", "cli.py"]]),
    // Edited since: compaction keeps this event, after the history.
    indexed("cli.py", [["app:cli.py:1-3", "parse", 1, 3]]),
  ]);
  const { drop } = await planCompaction(log.read());
  const all: StoredEvent[] = await collect(log.read());
  const partners = async (events: StoredEvent[], dir: string) => {
    const graph = await GraphProjection.open(join(tmp.path, dir));
    try {
      await graph.apply(events);
      const rows = await graph.database.run(
        "MATCH (p:FilePartners) WHERE p.partners IS NOT NULL RETURN p.key AS key, p.partners AS partners ORDER BY key",
      );
      return { rows, digest: await graph.digest() };
    } finally {
      await graph.close();
    }
  };
  const whole = await partners(all, "whole");
  const compacted = await partners(all.filter((event) => !drop.has(event.seq)), "compacted");
  assert.deepEqual(drop, new Set([1]));
  assert.deepEqual(whole.rows, [
    { key: "app\0cli.py", partners: ["app\0walk.py"] },
    { key: "app\0walk.py", partners: ["app\0cli.py"] },
  ]);
  assert.deepEqual(compacted.rows, whole.rows);
  assert.equal(compacted.digest, whole.digest);
});
