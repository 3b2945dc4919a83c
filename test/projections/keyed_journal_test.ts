import assert from "node:assert/strict";
import { join } from "node:path";
import { checkpointDisagrees, ProjectionDamage } from "../../projections/damage.ts";
import { KeyedJournal } from "../../projections/keyed_journal.ts";
import { tempDir } from "../helpers.ts";

Deno.test("KeyedJournal.open() gives the values in the order their keys were set, and the last event", async () => {
  await using tmp = await tempDir();
  const { journal } = await KeyedJournal.open<number>(tmp.path);
  await journal.write(3, [["a", 1], ["b", 2], ["c", 3]], () => []);
  await journal.write(5, [["a"], ["b", 20], ["a", 10]], () => []);
  journal.close();
  const opened = await KeyedJournal.open<number>(tmp.path);
  assert.deepEqual([...opened.entries], [["b", 20], ["c", 3], ["a", 10]]);
  assert.equal(opened.seq, 5);
  opened.journal.close();
});

Deno.test("KeyedJournal.open() cuts a torn last line, and refuses a damaged one before others", async () => {
  await using tmp = await tempDir();
  const { journal } = await KeyedJournal.open<number>(tmp.path);
  await journal.write(1, [["a", 1]], () => []);
  journal.close();
  const path = join(tmp.path, "journal.jsonl");
  await Deno.writeTextFile(path, '{"seq":2,"ops":[["b",', { append: true });
  const opened = await KeyedJournal.open<number>(tmp.path);
  assert.deepEqual([...opened.entries], [["a", 1]]);
  assert.equal(opened.seq, 1);
  await opened.journal.write(2, [["b", 2]], () => []);
  opened.journal.close();
  const text = await Deno.readTextFile(path);
  const again = await KeyedJournal.open<number>(tmp.path);
  assert.deepEqual([...again.entries], [["a", 1], ["b", 2]]);
  again.journal.close();

  await Deno.writeTextFile(path, text.replace('"seq":1', '"seq":1,,'));
  await assert.rejects(() => KeyedJournal.open<number>(tmp.path), ProjectionDamage);
});

Deno.test("KeyedJournal skips journal lines its snapshot already holds (a crash before the journal was emptied)", async () => {
  await using tmp = await tempDir();
  const { journal } = await KeyedJournal.open<number>(tmp.path);
  await journal.write(1, [["a", 1], ["b", 2]], () => []);
  await journal.write(2, [["a"], ["a", 3]], () => []);
  const path = join(tmp.path, "journal.jsonl");
  const lines = await Deno.readTextFile(path);
  await journal.snapshot(2, [["b", 2], ["a", 3]]);
  journal.close();
  // The journal as the crash left it: every line the snapshot holds, and one written after.
  await Deno.writeTextFile(path, lines + JSON.stringify({ seq: 3, ops: [["c", 4]] }) + "\n");
  const opened = await KeyedJournal.open<number>(tmp.path);
  assert.deepEqual([...opened.entries], [["b", 2], ["a", 3], ["c", 4]]);
  assert.equal(opened.seq, 3);
  await opened.journal.reset();
  opened.journal.close();
  const reset = await KeyedJournal.open<number>(tmp.path);
  assert.deepEqual([...reset.entries], []);
  assert.equal(reset.seq, 0);
  reset.journal.close();
});

Deno.test("KeyedJournal folds the journal into a snapshot once it outgrows it", async () => {
  await using tmp = await tempDir();
  const { journal } = await KeyedJournal.open<string>(tmp.path);
  const values = new Map<string, string>();
  const big = "x".repeat(64 * 1024);
  for (let seq = 1; seq <= 20; seq++) {
    values.set(`k${seq % 3}`, `${seq}${big}`);
    await journal.write(seq, [[`k${seq % 3}`, `${seq}${big}`]], () => values);
  }
  journal.close();
  const journalBytes = (await Deno.stat(join(tmp.path, "journal.jsonl"))).size;
  assert.ok(journalBytes < 1 << 20, `journal ${journalBytes} bytes`);
  const opened = await KeyedJournal.open<string>(tmp.path);
  assert.deepEqual(opened.entries, values);
  assert.equal(opened.seq, 20);
  opened.journal.close();
});

Deno.test("KeyedJournal.written is the last event its files hold, and a lost journal shows as an earlier one", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "state");
  const { journal } = await KeyedJournal.open<number>(dir);
  await journal.write(3, [["a", 1]], () => []);
  await journal.write(5, [], () => []);
  assert.equal(journal.written, 3, "an event that changed nothing writes nothing");
  await journal.write(8, [["a", 2]], () => []);
  assert.equal(journal.written, 8);
  journal.close();
  assert.equal((await KeyedJournal.open<number>(dir)).journal.written, 8);
  (await KeyedJournal.open<number>(dir)).journal.close();
  await Deno.remove(join(dir, "journal.jsonl"));
  const lost = await KeyedJournal.open<number>(dir);
  // The event the files were written for says what was lost, even where a count could not
  // (a value overwritten leaves the count as it was).
  assert.equal(lost.journal.written, 0);
  lost.journal.close();
  assert.equal(
    await checkpointDisagrees(
      { version: 1, seq: 9, count: 1, saved: 8 },
      { count: () => Promise.resolve(1), savedThrough: () => 0 },
      9,
    ),
    "was written up to event 0 where its checkpoint says 8",
  );
  assert.equal(
    await checkpointDisagrees({ version: 1, seq: 9, saved: 8 }, { savedThrough: () => 8 }, 9),
    undefined,
  );
  // Behind the head, a crash may have left the files ahead of the checkpoint: not judged.
  assert.equal(
    await checkpointDisagrees({ version: 1, seq: 7, saved: 8 }, { savedThrough: () => 0 }, 9),
    undefined,
  );
});
