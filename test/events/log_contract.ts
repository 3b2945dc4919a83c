import assert from "node:assert/strict";
import type { EventLog } from "../../events/log.ts";
import { collect, remembered } from "../helpers.ts";

/** A log implementation under test: how to open a fresh one and how to reopen it. */
export interface LogSubject {
  name: string;
  /** Opens a new empty log; `reopen` opens the same log again after `close`. */
  create(): Promise<{ log: EventLog; reopen?: () => Promise<EventLog>; dispose(): Promise<void> }>;
}

/** The behaviour every {@linkcode EventLog} must have, as given/when/then tests. */
export function logContract(subject: LogSubject): void {
  const test = (
    name: string,
    fn: (log: EventLog, reopen?: () => Promise<EventLog>) => Promise<void>,
  ) =>
    Deno.test(`${subject.name}: ${name}`, async () => {
      const { log, reopen, dispose } = await subject.create();
      try {
        await fn(log, reopen);
      } finally {
        await log.close();
        await dispose();
      }
    });

  test("given an empty log, when read, then nothing comes back and head is 0", async (log) => {
    assert.deepEqual(log.head, 0);
    assert.deepEqual(await collect(log.read()), []);
  });

  test("given events appended one by one, when read, then they come back numbered in order", async (log) => {
    await log.append([remembered("a")]);
    await log.append([remembered("b")]);
    const events = await collect(log.read());
    assert.deepEqual(events.map((e) => [e.seq, e.type === "memory.remembered" && e.data.id]), [[
      1,
      "a",
    ], [2, "b"]]);
    assert.deepEqual(log.head, 2);
  });

  test("given a batch, when appended, then it gets consecutive numbers and one timestamp", async (log) => {
    const stored = await log.append([remembered("a"), remembered("b"), remembered("c")]);
    assert.deepEqual(stored.map((e) => e.seq), [1, 2, 3]);
    assert.deepEqual(new Set(stored.map((e) => e.ts)).size, 1);
  });

  test("given many concurrent appends, when all resolve, then every event is there exactly once", async (log) => {
    await Promise.all(Array.from({ length: 50 }, (_, i) => log.append([remembered(`m${i}`)])));
    const ids = (await collect(log.read())).map((e) =>
      e.type === "memory.remembered" ? e.data.id : ""
    );
    assert.deepEqual(new Set(ids).size, 50);
    assert.deepEqual(log.head, 50);
  });

  test("given events, when read from a sequence number, then only later ones come back", async (log) => {
    await log.append(Array.from({ length: 10 }, (_, i) => remembered(`m${i}`)));
    assert.deepEqual((await collect(log.read(7))).map((e) => e.seq), [7, 8, 9, 10]);
    assert.deepEqual(await collect(log.read(11)), []);
  });

  test("given a malformed event, when appended, then it is refused and nothing is written", async (log) => {
    await log.append([remembered("ok")]);
    const bad = { type: "memory.remembered", v: 1, data: { id: "" } } as never;
    await assert.rejects(() => log.append([remembered("fine"), bad]));
    assert.deepEqual(log.head, 1);
    assert.deepEqual((await collect(log.read())).length, 1);
  });

  test("given a rewrite dropping events, when read, then survivors keep their numbers and head stays", async (log) => {
    await log.append(Array.from({ length: 5 }, (_, i) => remembered(`m${i}`)));
    const stats = await log.rewrite((e) => e.seq % 2 === 1);
    assert.deepEqual([stats.kept, stats.dropped], [3, 2]);
    assert.deepEqual((await collect(log.read())).map((e) => e.seq), [1, 3, 5]);
    assert.deepEqual(log.head, 5);
    const [next] = await log.append([remembered("after")]);
    assert.deepEqual(next!.seq, 6);
  });

  test(
    "given appended events, when the log is reopened, then they are all still there",
    async (log, reopen) => {
      if (!reopen) return;
      await log.append([remembered("a"), remembered("b")]);
      await log.close();
      const again = await reopen();
      try {
        assert.deepEqual(again.head, 2);
        const events = await collect(again.read());
        assert.ok(events.every((e) => e.type === "memory.remembered"));
        assert.deepEqual(events.length, 2);
      } finally {
        await again.close();
      }
    },
  );
}
