import assert from "node:assert/strict";
import { MemoryLog } from "../../events/memory_log.ts";
import type { StoredEvent } from "../../events/schema.ts";
import { sha256Hex } from "../../events/blobs.ts";
import { MemoryCheckpoints } from "../../projections/checkpoints.ts";
import type { Projection } from "../../projections/projection.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { remembered } from "../helpers.ts";

/** A projection that keeps the live memories' contents, enough to see what the runner feeds it. */
class MemoryContents implements Projection {
  readonly name = "contents";
  contents = new Map<string, string>();
  applied = 0;
  resets = 0;
  constructor(readonly version = 1) {}
  apply(batch: readonly StoredEvent[]): Promise<void> {
    for (const event of batch) {
      this.applied++;
      if (event.type === "memory.remembered") this.contents.set(event.data.id, event.data.content);
      if (event.type === "memory.forgotten") this.contents.delete(event.data.id);
    }
    return Promise.resolve();
  }
  reset(): Promise<void> {
    this.resets++;
    this.contents.clear();
    return Promise.resolve();
  }
  digest(): Promise<string> {
    return sha256Hex(JSON.stringify([...this.contents].sort()));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

Deno.test("ProjectionRunner.open() catches a new projection up to the head of the log", async () => {
  const log = new MemoryLog();
  await log.append([remembered("a"), remembered("b")]);
  const projection = new MemoryContents();
  const runner = await ProjectionRunner.open(log, [projection], new MemoryCheckpoints());
  assert.deepEqual([...projection.contents.keys()], ["a", "b"]);
  assert.deepEqual(runner.status(), [{ name: "contents", version: 1, checkpoint: 2, lag: 0 }]);
});

Deno.test("ProjectionRunner.catchUp() applies only events past the checkpoint", async () => {
  const log = new MemoryLog();
  const projection = new MemoryContents();
  const checkpoints = new MemoryCheckpoints();
  const runner = await ProjectionRunner.open(log, [projection], checkpoints);
  await log.append([remembered("a")]);
  await runner.catchUp();
  await log.append([remembered("b"), { type: "memory.forgotten", v: 1, data: { id: "a" } }]);
  await runner.catchUp();
  assert.equal(projection.applied, 3);
  assert.deepEqual([...projection.contents.keys()], ["b"]);
  assert.deepEqual(await checkpoints.read("contents"), { version: 1, seq: 3 });
});

Deno.test("ProjectionRunner.open() rebuilds a projection whose code version changed", async () => {
  const log = new MemoryLog();
  await log.append([remembered("a"), remembered("b")]);
  const checkpoints = new MemoryCheckpoints();
  const said: string[] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => said.push(args.join(" "));
  const upgraded = new MemoryContents(2);
  try {
    await ProjectionRunner.open(log, [new MemoryContents(1)], checkpoints);
    assert.deepEqual(said, [], "a first build is not announced");
    await ProjectionRunner.open(log, [upgraded], checkpoints);
  } finally {
    console.error = error;
  }
  // A rebuild can take a while on a large store: the user is told why the command is slow.
  assert.deepEqual(said, [
    "cairn: this version of cairn builds the contents projection differently; " +
    "rebuilding it from the log's 2 events (once)",
  ]);
  assert.equal(upgraded.resets, 1);
  assert.equal(upgraded.applied, 2);
  assert.deepEqual(await checkpoints.read("contents"), { version: 2, seq: 2 });
});

Deno.test("ProjectionRunner.rebuild() replays to an identical digest", async () => {
  const log = new MemoryLog();
  for (let i = 0; i < 1200; i++) await log.append([remembered(`m${i % 700}`, `v${i}`)]);
  const projection = new MemoryContents();
  const runner = await ProjectionRunner.open(log, [projection], new MemoryCheckpoints());
  const before = await runner.digests();
  await runner.rebuild("contents");
  assert.equal(projection.resets, 2);
  assert.deepEqual(await runner.digests(), before);
  await assert.rejects(() => runner.rebuild("nope"), /no projection named "nope"; known: contents/);
});

Deno.test("ProjectionRunner counts the head as applied when compaction dropped the last events", async () => {
  const log = new MemoryLog();
  await log.append([remembered("a"), remembered("b"), {
    type: "memory.purged",
    v: 1,
    data: { id: "b" },
  }]);
  await log.rewrite((event) => event.seq === 1);
  const runner = await ProjectionRunner.open(log, [new MemoryContents()], new MemoryCheckpoints());
  assert.equal(runner.status()[0]!.lag, 0);
});

/** A background projection that only finishes a batch when the test lets it. */
class Gated extends MemoryContents {
  readonly background = true;
  #release: (() => void) | undefined;
  gate = Promise.resolve();
  hold(): void {
    this.gate = new Promise((resolve) => (this.#release = resolve));
  }
  release(): void {
    this.#release?.();
  }
  override async apply(batch: readonly StoredEvent[]): Promise<void> {
    await this.gate;
    await super.apply(batch);
  }
}

Deno.test("ProjectionRunner: background projections catch up behind the writes; settled() waits for them", async () => {
  const log = new MemoryLog();
  const slow = new Gated();
  const runner = await ProjectionRunner.open(log, [slow], new MemoryCheckpoints());
  slow.hold();
  await log.append([remembered("a")]);
  await runner.catchUp();
  assert.equal(slow.contents.size, 0, "catchUp() does not wait for the background lane");
  assert.equal(runner.status()[0]!.lag, 1);
  const settled = runner.settled();
  slow.release();
  await settled;
  assert.deepEqual([...slow.contents.keys()], ["a"]);
  assert.equal(runner.status()[0]!.lag, 0);
  await runner.close();
});

/** A background projection that records its batches' sizes; a memory whose content is `w<n>` weighs n. */
class Weighed extends MemoryContents {
  readonly background = true;
  batches: number[] = [];
  workOf(event: StoredEvent): number {
    return event.type === "memory.remembered" ? Number(event.data.content.slice(1)) : 0;
  }
  override async apply(batch: readonly StoredEvent[]): Promise<void> {
    this.batches.push(batch.length);
    await super.apply(batch);
  }
}

Deno.test("ProjectionRunner: a background batch ends early once its events hold much work", async () => {
  const log = new MemoryLog();
  // 40 light events (16 a batch), then heavy ones: 100 + 100 of work pass the budget, 200 alone does.
  await log.append(Array.from({ length: 40 }, (_, i) => remembered(`light${i}`, "w1")));
  await log.append([remembered("h1", "w100"), remembered("h2", "w100"), remembered("h3", "w200")]);
  await log.append([remembered("h4", "w3"), remembered("h5", "w3")]);
  const weighed = new Weighed();
  const runner = await ProjectionRunner.open(log, [weighed], new MemoryCheckpoints());
  await runner.settled();
  assert.deepEqual(weighed.batches, [16, 16, 10, 1, 2]);
  assert.equal(weighed.contents.size, 45);
  assert.equal(runner.status()[0]!.lag, 0);
  await runner.close();
});

Deno.test("ProjectionRunner.rewriting() keeps the named checkpoints off disk until its work succeeds", async () => {
  const log = new MemoryLog();
  await log.append([remembered("a")]);
  const checkpoints = new MemoryCheckpoints();
  const projection = new MemoryContents();
  const runner = await ProjectionRunner.open(log, [projection], checkpoints);
  const seen = await runner.rewriting(["contents"], async (applied) => {
    assert.equal(await checkpoints.read("contents"), undefined);
    return applied("contents");
  });
  assert.equal(seen, 1);
  assert.deepEqual(await checkpoints.read("contents"), { version: 1, seq: 1 });
  await assert.rejects(() => runner.rewriting(["nope"], () => Promise.resolve()), /"nope"/);
});

Deno.test("ProjectionRunner.rewriting(): after a failed rewrite the projection is rebuilt on the next open", async () => {
  const log = new MemoryLog();
  await log.append([remembered("a")]);
  const checkpoints = new MemoryCheckpoints();
  const runner = await ProjectionRunner.open(log, [new MemoryContents()], checkpoints);
  await assert.rejects(
    () => runner.rewriting(["contents"], () => Promise.reject(new Error("disk full"))),
    /disk full/,
  );
  await log.append([remembered("b")]);
  await runner.catchUp();
  assert.equal(runner.status()[0]!.checkpoint, 2, "events still apply");
  assert.equal(await checkpoints.read("contents"), undefined, "but the checkpoint stays off disk");
  const reopened = new MemoryContents();
  await ProjectionRunner.open(log, [reopened], checkpoints);
  assert.equal(reopened.resets, 1);
  assert.deepEqual([...reopened.contents.keys()], ["a", "b"]);
});

Deno.test("ProjectionRunner.rewriting() runs after the catch-ups before it and before those after it", async () => {
  const log = new MemoryLog();
  const projection = new MemoryContents();
  const runner = await ProjectionRunner.open(log, [projection], new MemoryCheckpoints());
  await log.append([remembered("a")]);
  const before = runner.catchUp();
  let after: Promise<void> | undefined;
  const seen = await runner.rewriting(["contents"], async (applied) => {
    await log.append([remembered("b")]);
    after = runner.catchUp();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual([...projection.contents.keys()], ["a"], "the later catch-up waits");
    return applied("contents");
  });
  await before;
  await after;
  assert.equal(seen, 1);
  assert.deepEqual([...projection.contents.keys()], ["a", "b"]);
});

Deno.test("ProjectionRunner.rebuild() takes the checkpoint off disk before resetting, so a reset cut short is redone on open", async () => {
  const log = new MemoryLog();
  await log.append([remembered("a")]);
  const checkpoints = new MemoryCheckpoints();
  const projection = new MemoryContents();
  const runner = await ProjectionRunner.open(log, [projection], checkpoints);
  projection.reset = () => Promise.reject(new Error("killed mid-reset"));
  await assert.rejects(() => runner.rebuild("contents"), /killed mid-reset/);
  assert.equal(await checkpoints.read("contents"), undefined);
});

/** {@linkcode MemoryContents} that counts its documents, as the real projections do. */
class CountedContents extends MemoryContents {
  count(): Promise<number> {
    return Promise.resolve(this.contents.size);
  }
}

Deno.test("ProjectionRunner.open() rebuilds a caught-up projection that lost documents, and trusts one a crash left ahead of its checkpoint", async () => {
  const log = new MemoryLog();
  await log.append([remembered("a"), remembered("b")]);
  const checkpoints = new MemoryCheckpoints();
  const first = new CountedContents();
  await ProjectionRunner.open(log, [first], checkpoints);
  assert.deepEqual(await checkpoints.read("contents"), { version: 1, seq: 2, count: 2 });

  const error = console.error;
  const said: string[] = [];
  console.error = (...args: unknown[]) => said.push(args.join(" "));
  try {
    // At the head with a document gone: damage, rebuilt.
    const lost = new CountedContents();
    lost.contents.set("a", "content of a");
    await ProjectionRunner.open(log, [lost], checkpoints);
    assert.equal(lost.resets, 1);
    assert.deepEqual([...lost.contents.keys()].sort(), ["a", "b"]);
    assert.match(said.join("\n"), /holds 1 entries where its checkpoint says 2/);

    // A crash after applying event 3 and before its checkpoint: files ahead, nothing rebuilt.
    await log.append([remembered("c")]);
    said.length = 0;
    const ahead = new CountedContents();
    for (const id of ["a", "b", "c"]) ahead.contents.set(id, `content of ${id}`);
    await ProjectionRunner.open(log, [ahead], checkpoints);
    assert.equal(ahead.resets, 0);
    assert.equal(ahead.applied, 1, "only event 3 is applied again");
    assert.deepEqual(said, []);
  } finally {
    console.error = error;
  }
});
