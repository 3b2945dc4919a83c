/**
 * The behaviour every {@linkcode Projection} must have, run against each one
 * by projection_contract_test.ts over the same events (contract_events.ts, of
 * every kind). Each step compares the projection's `digest()` with that of
 * the projection built with every event in one batch.
 *
 * A new projection joins with one entry there: a {@linkcode ProjectionSubject}
 * naming it and opening it on the files in a folder (it is closed with its
 * own `close()`), e.g.
 * `projectionContract({ name: "TextProjection", open: (dir, { blobs }) => TextProjection.open(dir, blobs) })`.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BlobStore } from "../../events/blobs.ts";
import { FileLog } from "../../events/file_log.ts";
import type { EventLog } from "../../events/log.ts";
import type { NewEvent, StoredEvent } from "../../events/schema.ts";
import { FileCheckpoints } from "../../projections/checkpoints.ts";
import type { Checkpoint, CheckpointStore, Projection } from "../../projections/projection.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { tempDir } from "../helpers.ts";
import { contractEvents } from "./contract_events.ts";

/** What a projection reads besides the events it is given. */
export interface ProjectionSources {
  /** The texts of chunks and turns. */
  blobs: BlobStore;
  /** The log the events come from, for a projection that reads ahead in it. */
  log: EventLog;
}

/** A projection under test: its name, and how to open it on the files in `dir`. */
export interface ProjectionSubject {
  name: string;
  open(dir: string, sources: ProjectionSources): Promise<Projection>;
}

/** Registers the contract's test for `subject`, a step per promise. */
export function projectionContract(subject: ProjectionSubject): void {
  Deno.test(`${subject.name} keeps the projection contract over every kind of event`, async (t) => {
    const { events, texts } = await contractEvents();
    await using tmp = await tempDir("cairn-projection-contract-");
    const blobs = new BlobStore(join(tmp.path, "blobs"));
    for (const [hash, text] of texts) assert.equal(await blobs.put(text), hash);
    const log = await replayLog(join(tmp.path, "log"));
    await log.appendAs(events);
    const sources = { blobs, log };
    let opened = 0;
    const fresh = () => subject.open(join(tmp.path, `projection-${++opened}`), sources);
    try {
      const { empty, full, count } = await withOpen(fresh, async (projection) => {
        const empty = await projection.digest();
        await projection.apply(events);
        return { empty, full: await projection.digest(), count: await projection.count?.() };
      });
      assert.notEqual(full, empty, "the events change the projection");

      await t.step("applied in batches of 1, of 7 or all at once, it holds the same", async () => {
        for (const size of [1, 7]) {
          const digest = await withOpen(fresh, async (projection) => {
            for (const batch of batches(events, size)) await projection.apply(batch);
            return await projection.digest();
          });
          assert.equal(digest, full, `in batches of ${size}`);
        }
      });

      await t.step("given every event twice, it holds the same (it is idempotent)", async () => {
        const digest = await withOpen(fresh, async (projection) => {
          for (const batch of batches(events, 7)) {
            await projection.apply(batch);
            await projection.apply(batch);
          }
          await projection.apply(events);
          return await projection.digest();
        });
        assert.equal(digest, full);
      });

      await t.step("reset() empties it, and the events applied again give the same", async () => {
        await withOpen(fresh, async (projection) => {
          await projection.apply(events);
          await projection.reset();
          assert.equal(await projection.digest(), empty, "reset leaves it as if new");
          await projection.apply(events);
          assert.equal(await projection.digest(), full);
        });
      });

      await t.step("closed and opened again from its files, it holds the same", async () => {
        const dir = join(tmp.path, `projection-${++opened}`);
        const half = Math.floor(events.length / 2);
        await withOpen(() => subject.open(dir, sources), async (projection) => {
          for (const batch of batches(events.slice(0, half), 1)) await projection.apply(batch);
        });
        // What it keeps in memory besides its files must come back from them too.
        await withOpen(() => subject.open(dir, sources), async (projection) => {
          for (const batch of batches(events.slice(half), 7)) await projection.apply(batch);
        });
        await withOpen(() => subject.open(dir, sources), async (projection) => {
          assert.equal(await projection.digest(), full);
          assert.equal(await projection.count?.(), count);
        });
      });

      await t.step(
        "after a crash between apply and checkpoint, its runner applies the rest again to the same",
        async () => {
          const dir = join(tmp.path, `projection-${++opened}`);
          await crashThenReopen(events, (log) => subject.open(dir, { blobs, log }), full, tmp.path);
        },
      );
    } finally {
      await log.close();
    }
  });
}

/**
 * Through a {@linkcode ProjectionRunner} over a file log that grows as a
 * store's does: the checkpoint is written at a third of the events, the
 * projection then applies up to two thirds but those checkpoints are lost (the
 * process died before writing them), and the store opens again: the runner
 * must apply again from the checkpoint, not rebuild, and end at `full`.
 */
async function crashThenReopen(
  events: readonly StoredEvent[],
  open: (log: EventLog) => Promise<Projection>,
  full: string,
  dir: string,
): Promise<void> {
  const saved = Math.floor(events.length / 3);
  const crashed = Math.floor((events.length * 2) / 3);
  const log = await replayLog(join(dir, "runner-log"));
  await log.appendAs(events.slice(0, saved));
  const checkpoints = new LosingCheckpoints(new FileCheckpoints(join(dir, "checkpoints")));
  try {
    const before = await ProjectionRunner.open(log, [await open(log)], checkpoints);
    try {
      await before.settled();
      checkpoints.losing = true;
      const stored = await log.appendAs(events.slice(saved, crashed));
      before.observe(stored);
      await before.catchUp();
      await before.settled();
    } finally {
      await before.close();
    }
    checkpoints.losing = false;
    const name = before.names[0]!;
    assert.equal((await checkpoints.read(name))?.seq, saved, "the later checkpoints were lost");

    const seen = { applied: [] as number[], resets: 0 };
    const after = await ProjectionRunner.open(log, [watched(await open(log), seen)], checkpoints);
    try {
      await after.settled();
      const stored = await log.appendAs(events.slice(crashed));
      after.observe(stored);
      await after.catchUp();
      await after.settled();
      assert.equal(seen.resets, 0, "the runner applied again, it did not rebuild");
      assert.equal(seen.applied[0], saved + 1, "the runner applied again from its checkpoint");
      assert.equal((await checkpoints.read(name))?.seq, events.length);
      assert.equal(await after.projections[0]!.digest(), full);
    } finally {
      await after.close();
    }
  } finally {
    await log.close();
  }
}

/** Checkpoints on disk that, while `losing`, are not written: a crash before the write. */
class LosingCheckpoints implements CheckpointStore {
  losing = false;
  constructor(private readonly inner: CheckpointStore) {}
  read(name: string): Promise<Checkpoint | undefined> {
    return this.inner.read(name);
  }
  write(name: string, checkpoint: Checkpoint): Promise<void> {
    return this.losing ? Promise.resolve() : this.inner.write(name, checkpoint);
  }
  remove(name: string): Promise<void> {
    return this.losing ? Promise.resolve() : this.inner.remove(name);
  }
}

/** `projection` as it is, noting the events the runner hands it and its resets in `seen`. */
function watched(projection: Projection, seen: { applied: number[]; resets: number }): Projection {
  return new Proxy(projection, {
    get(target, key) {
      if (key === "apply") {
        return (batch: readonly StoredEvent[]) => {
          seen.applied.push(...batch.map((event) => event.seq));
          return target.apply(batch);
        };
      }
      if (key === "reset") {
        return () => {
          seen.resets++;
          return target.reset();
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Opens a projection, runs `work` on it and closes it, whatever happens. */
async function withOpen<T>(
  open: () => Promise<Projection>,
  work: (projection: Projection) => Promise<T>,
): Promise<T> {
  const projection = await open();
  try {
    return await work(projection);
  } finally {
    await projection.close();
  }
}

function batches<T>(items: readonly T[], size: number): T[][] {
  return Array.from(
    { length: Math.ceil(items.length / size) },
    (_, i) => items.slice(i * size, (i + 1) * size),
  );
}

/** A file log in `dir` that takes events as they were stored: same numbers, same times. */
async function replayLog(dir: string): Promise<ReplayLog> {
  let stamp = "";
  const log = await FileLog.open(dir, { clock: () => new Date(stamp) });
  return Object.assign(log, {
    async appendAs(events: readonly StoredEvent[]): Promise<StoredEvent[]> {
      const stored: StoredEvent[] = [];
      // Events stored together go in together, as the store's group commits did.
      for (let at = 0, end = 0; at < events.length; at = end) {
        stamp = events[at]!.ts;
        while (end < events.length && events[end]!.ts === stamp) end++;
        stored.push(...await log.append(events.slice(at, end).map(unstored)));
      }
      assert.deepEqual(stored.map((e) => [e.seq, e.ts]), events.map((e) => [e.seq, e.ts]));
      return stored;
    },
  });
}

type ReplayLog = FileLog & { appendAs(events: readonly StoredEvent[]): Promise<StoredEvent[]> };

/** An event as a command produced it, without the number and time the log gave it. */
function unstored({ seq: _seq, ts: _ts, ...event }: StoredEvent): NewEvent {
  return event as NewEvent;
}
