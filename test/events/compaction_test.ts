import assert from "node:assert/strict";
import { planCompaction } from "../../events/compaction.ts";
import { MemoryLog } from "../../events/memory_log.ts";
import type { NewEvent } from "../../events/schema.ts";
import { remembered } from "../helpers.ts";

const HASH = "a".repeat(64);

function indexed(path: string, project = "p"): NewEvent {
  return {
    type: "file.indexed",
    v: 1,
    data: {
      project,
      path,
      hash: "h",
      size: 1,
      mtime_ms: 0,
      language: "python",
      chunks: [],
      references: [],
    },
  };
}

async function dropped(events: NewEvent[]): Promise<number[]> {
  const log = new MemoryLog();
  await log.append(events);
  return [...(await planCompaction(log.read())).drop].sort((a, b) => a - b);
}

Deno.test("planCompaction() keeps only a file's last indexing", async () => {
  assert.deepEqual(await dropped([indexed("a.py"), indexed("b.py"), indexed("a.py")]), [1]);
});

Deno.test("planCompaction() drops every event of a removed file", async () => {
  const removed: NewEvent = { type: "file.removed", v: 1, data: { project: "p", path: "a.py" } };
  assert.deepEqual(await dropped([indexed("a.py"), indexed("b.py"), removed]), [1, 3]);
});

Deno.test("planCompaction() drops a retracted turn with its retraction", async () => {
  const turn: NewEvent = {
    type: "turn.ingested",
    v: 1,
    data: {
      agent: "claude",
      session: "s",
      line: 4,
      project: null,
      started_at: "2026-01-01T00:00:00Z",
      provisional: true,
      text: HASH,
      mentions: [],
    },
  };
  const retracted: NewEvent = { type: "turn.retracted", v: 1, data: { session: "s", line: 4 } };
  const final = { ...turn, data: { ...turn.data, provisional: false } } as NewEvent;
  assert.deepEqual(await dropped([turn, retracted, final]), [1, 2]);
});

Deno.test("planCompaction() drops a deleted project's earlier files but keeps its memories", async () => {
  const registered: NewEvent = {
    type: "project.registered",
    v: 1,
    data: { project: "p", root: "/r" },
  };
  const deleted: NewEvent = { type: "project.deleted", v: 1, data: { project: "p" } };
  assert.deepEqual(
    await dropped([
      registered,
      indexed("a.py"),
      remembered("m", "x", "p"),
      indexed("b.py", "q"),
      deleted,
    ]),
    [1, 2],
  );
});

Deno.test("planCompaction() drops a deleted entity's history but keeps the deletion", async () => {
  const created: NewEvent = {
    type: "entity.created",
    v: 1,
    data: { name: "E", entity_type: "thing", observations: ["o"], project: null },
  };
  const related: NewEvent = {
    type: "relation.created",
    v: 1,
    data: { from: "E", to: "F", relation_type: "uses" },
  };
  const deleted: NewEvent = { type: "entity.deleted", v: 1, data: { name: "E" } };
  assert.deepEqual(await dropped([created, related, deleted, created]), [1, 2]);
});

Deno.test("planCompaction() removes every event of a purged memory and keeps revisions of others", async () => {
  const revised: NewEvent = { type: "memory.revised", v: 1, data: { id: "keep", content: "new" } };
  const forgotten: NewEvent = { type: "memory.forgotten", v: 1, data: { id: "secret" } };
  const purged: NewEvent = { type: "memory.purged", v: 1, data: { id: "secret" } };
  assert.deepEqual(
    await dropped([
      remembered("keep"),
      remembered("secret", "api key"),
      revised,
      forgotten,
      purged,
    ]),
    [2, 4, 5],
  );
});

Deno.test("planCompaction() names the purged memories, whose content must leave the projections too", async () => {
  const log = new MemoryLog();
  await log.append([
    remembered("keep"),
    remembered("secret"),
    { type: "memory.purged", v: 1, data: { id: "secret" } },
  ]);
  assert.deepEqual([...(await planCompaction(log.read())).purged], ["secret"]);
  await log.rewrite((event) => event.seq === 1);
  assert.equal((await planCompaction(log.read())).purged.size, 0);
});

Deno.test("planCompaction() keeps a project's last history, and none once the project is deleted", async () => {
  const history = (project: string): NewEvent => ({
    type: "project.history_read",
    v: 1,
    data: { project, head: "c".repeat(40), commits: 2, pairs: [] },
  });
  const deleted: NewEvent = { type: "project.deleted", v: 1, data: { project: "p" } };
  assert.deepEqual(await dropped([history("p"), history("q"), history("p")]), [1]);
  assert.deepEqual(await dropped([history("p"), history("q"), deleted]), [1]);
});
