import assert from "node:assert/strict";
import { planCompaction } from "../../events/compaction.ts";
import { MemoryLog } from "../../events/memory_log.ts";
import type { NewEvent, StoredEvent } from "../../events/schema.ts";
import { MemoryHistory } from "../../projections/memory_history.ts";
import { withoutUndefined } from "../../src/service/objects.ts";
import { collect, filesHolding, remembered, tempDir } from "../helpers.ts";

const revised = (id: string, data: Record<string, unknown>): NewEvent =>
  ({ type: "memory.revised", v: 1, data: { id, ...data } }) as NewEvent;
const forgotten = (id: string): NewEvent => ({ type: "memory.forgotten", v: 1, data: { id } });

/**
 * Memory events a minute apart, with one append stamped before the one it
 * follows (a clock set back), and other events between.
 */
async function memoryEvents(): Promise<StoredEvent[]> {
  const minutes = [0, 1, 2, 3, 4, 2, 5, 6, 7];
  let at = 0;
  const log = new MemoryLog(() => new Date(Date.UTC(2026, 0, 1, 0, minutes[at++]!)));
  for (
    const batch of [
      [remembered("a", "Deploys run on Tuesdays"), remembered("b", "Cache TTL is 5 minutes", null)],
      [revised("a", { content: "Deploys run on Wednesdays", tags: ["ops"] }), revised("zz", {})],
      [forgotten("b"), forgotten("nobody")],
      [{
        type: "entity.created",
        v: 1,
        data: { name: "Deploys", entity_type: "topic", observations: [], project: null },
      }],
      [{
        ...remembered("c", "Invoices are rendered with WeasyPrint"),
        data: {
          ...(remembered("c").data as object),
          content: "Invoices are rendered with WeasyPrint",
          valid_from: "2025-01-01",
          entities: ["WeasyPrint"],
        },
      } as NewEvent],
      [revised("c", { valid_to: "2026-06-01" })],
      [revised("b", { kind: "decision" })],
      [remembered("a", "Deploys run on Thursdays")],
      [remembered("d")],
    ] as NewEvent[][]
  ) await log.append(batch);
  return await collect(log.read());
}

/** `memoriesAsOf` as it folded the log before the history was a projection. */
function foldedFromLog(events: readonly StoredEvent[], limit: number) {
  const memories = new Map<string, Record<string, unknown>>();
  for (const event of events) {
    if (Date.parse(event.ts) > limit) break;
    switch (event.type) {
      case "memory.remembered": {
        const { id, project, relations: _relations, entities: _entities, ...rest } = event.data;
        memories.set(id, {
          ...withoutUndefined(rest),
          id,
          project,
          created_at: event.ts,
          updated_at: event.ts,
        });
        break;
      }
      case "memory.revised": {
        const current = memories.get(event.data.id);
        if (!current) break;
        const { id: _id, ...changes } = event.data;
        memories.set(event.data.id, {
          ...current,
          ...withoutUndefined(changes),
          updated_at: event.ts,
        });
        break;
      }
      case "memory.forgotten": {
        const current = memories.get(event.data.id);
        if (current) current.forgotten_at = event.ts;
        break;
      }
      case "memory.purged":
        memories.delete(event.data.id);
        break;
    }
  }
  return memories;
}

/** Every moment worth asking about: before, at and just after each append, and long after. */
function moments(events: readonly StoredEvent[]): number[] {
  const at = [...new Set(events.map((event) => Date.parse(event.ts)))];
  return [0, ...at.flatMap((ms) => [ms - 1, ms, ms + 1]), Date.UTC(2100, 0, 1)];
}

Deno.test("MemoryHistory.asOf() answers what the fold of the log up to that moment answered, at every moment", async () => {
  const events = await memoryEvents();
  for (const size of [1, 4, events.length]) {
    const history = MemoryHistory.inMemory();
    for (let at = 0; at < events.length; at += size) {
      await history.apply(events.slice(at, at + size));
    }
    for (const moment of moments(events)) {
      assert.deepEqual(
        [...history.asOf(moment)],
        [...foldedFromLog(events, moment)],
        `batches of ${size}, as of ${new Date(moment).toISOString()}`,
      );
    }
    assert.equal(await history.count(), 4);
  }
});

Deno.test("MemoryHistory.changesOf() lists a memory's changes, oldest first", async () => {
  const history = MemoryHistory.inMemory();
  await history.apply(await memoryEvents());
  assert.deepEqual(history.changesOf("a").map(({ change, fields }) => [change, fields]), [
    ["remembered", { project: "p", kind: "note", content: "Deploys run on Tuesdays", tags: [] }],
    ["revised", { content: "Deploys run on Wednesdays", tags: ["ops"] }],
    ["remembered", { project: "p", kind: "note", content: "Deploys run on Thursdays", tags: [] }],
  ]);
  assert.deepEqual(history.changesOf("zz"), [], "a revision of no memory is no history");
});

Deno.test("MemoryHistory keeps every change across a reopen, and skips events handed again", async () => {
  await using tmp = await tempDir();
  const events = await memoryEvents();
  const history = await MemoryHistory.open(tmp.path);
  for (const event of events) await history.apply([event]);
  const digest = await history.digest();
  await history.apply(events.slice(1, 6));
  assert.equal(await history.digest(), digest);
  await history.close();

  const reopened = await MemoryHistory.open(tmp.path);
  assert.equal(await reopened.digest(), digest);
  for (const moment of moments(events)) {
    assert.deepEqual([...reopened.asOf(moment)], [...foldedFromLog(events, moment)]);
  }
  await reopened.close();
});

Deno.test("MemoryHistory.reset() empties it, on disk too, and the log builds it again the same", async () => {
  await using tmp = await tempDir();
  const events = await memoryEvents();
  const history = await MemoryHistory.open(tmp.path);
  await history.apply(events);
  const digest = await history.digest();
  await history.reset();
  assert.equal(history.asOf(Date.UTC(2100, 0, 1)).size, 0);
  await history.close();

  const emptied = await MemoryHistory.open(tmp.path);
  assert.equal(await emptied.count(), 0);
  await emptied.apply(events.slice(0, 3));
  await emptied.apply(events.slice(3));
  assert.equal(await emptied.digest(), digest);
  await emptied.close();
});

Deno.test("MemoryHistory drops a purged memory's every change, and a rewrite leaves no copy on disk", async () => {
  await using tmp = await tempDir();
  const log = new MemoryLog();
  await log.append([remembered("s", "The staging password is hunter2"), remembered("k")]);
  await log.append([revised("s", { tags: ["secret"] })]);
  await log.append([{ type: "memory.purged", v: 1, data: { id: "s" } }]);
  const history = await MemoryHistory.open(tmp.path);
  await history.apply(await collect(log.read()));
  assert.deepEqual([...history.asOf(Date.now() + 1000).keys()], ["k"]);
  assert.deepEqual(history.changesOf("s"), []);
  await history.rewrite();
  assert.deepEqual(await filesHolding(tmp.path, "hunter2"), []);
  await history.close();
  const reopened = await MemoryHistory.open(tmp.path);
  assert.deepEqual([...reopened.asOf(Date.now() + 1000).keys()], ["k"]);
  await reopened.close();
});

Deno.test("MemoryHistory holds the same once its log is compacted after a purge", async () => {
  const log = new MemoryLog();
  for (const event of await memoryEvents()) await log.append([event as NewEvent]);
  await log.append([{ type: "memory.purged", v: 1, data: { id: "c" } }]);
  const events = await collect(log.read());
  const history = MemoryHistory.inMemory();
  await history.apply(events);
  const { drop } = await planCompaction(log.read());
  assert.ok(drop.size > 0);
  const compacted = MemoryHistory.inMemory();
  await compacted.apply(events.filter((event) => !drop.has(event.seq)));
  assert.equal(await compacted.digest(), await history.digest());
  const later = Date.now() + 1000;
  assert.deepEqual([...compacted.asOf(later)], [...history.asOf(later)]);
});
