import assert from "node:assert/strict";
import { join } from "node:path";
import { FileLog } from "../../events/file_log.ts";
import { LogCorruptError } from "../../events/log.ts";
import { readManifest } from "../../events/manifest.ts";
import { encodeRecord } from "../../events/record.ts";
import { scanSegment } from "../../events/segment.ts";
import { checkLog, repairLog } from "../../events/verify.ts";
import { collect, remembered, tempDir } from "../helpers.ts";

async function logWith(dir: string, count: number, segmentBytes = 1024): Promise<string[]> {
  const log = await FileLog.open(dir, { segmentBytes });
  for (let i = 0; i < count; i++) await log.append([remembered(`m${i}`)]);
  await log.close();
  return (await readManifest(dir))!.segments.map((segment) => join(dir, segment.file));
}

async function flipByte(path: string, offset: number): Promise<void> {
  const bytes = await Deno.readFile(path);
  bytes[offset] = bytes[offset]! ^ 0xff;
  await Deno.writeFile(path, bytes);
}

Deno.test("FileLog.open() cuts a torn last record and says so", async () => {
  await using tmp = await tempDir();
  const [segment] = await logWith(tmp.path, 2, 1 << 20);
  // A third write cut short by a crash, before it was acknowledged.
  const torn = encodeRecord(3, { type: "memory.forgotten", v: 1, data: { id: "m0" } });
  await Deno.writeFile(segment!, torn.subarray(0, torn.length - 7), { append: true });
  const log = await FileLog.open(tmp.path);
  assert.equal(log.head, 2);
  assert.equal(log.recovery.truncatedTail?.reason, "record runs past the end of the file");
  const [next] = await log.append([remembered("after")]);
  assert.equal(next!.seq, 3);
  await log.close();
  const again = await FileLog.open(tmp.path);
  assert.deepEqual((await collect(again.read())).map((e) => e.seq), [1, 2, 3]);
  assert.deepEqual(again.recovery, {});
  await again.close();
});

Deno.test("FileLog.open() read-only reports a torn tail without cutting it", async () => {
  await using tmp = await tempDir();
  const [segment] = await logWith(tmp.path, 2, 1 << 20);
  const size = (await Deno.stat(segment!)).size;
  await Deno.writeFile(segment!, new Uint8Array([1, 2, 3]), { append: true });
  const log = await FileLog.open(tmp.path, { readOnly: true });
  assert.equal(log.head, 2);
  assert.ok(log.recovery.truncatedTail);
  await log.close();
  assert.equal((await Deno.stat(segment!)).size, size + 3);
});

Deno.test("FileLog.open() refuses a flipped byte in the middle, naming segment and offset", async () => {
  await using tmp = await tempDir();
  const [segment] = await logWith(tmp.path, 5, 1 << 20);
  await flipByte(segment!, 60);
  await assert.rejects(() => FileLog.open(tmp.path), (error: unknown) => {
    assert.ok(error instanceof LogCorruptError);
    assert.equal(error.segment, segment);
    assert.equal(typeof error.offset, "number");
    assert.match(error.message, /damaged at byte offset \d+ \(checksum mismatch\)/);
    assert.match(error.message, /cairn verify --repair/);
    return true;
  });
});

Deno.test("FileLog.open() refuses damage in a sealed segment even at its end", async () => {
  await using tmp = await tempDir();
  const segments = await logWith(tmp.path, 20, 600);
  assert.ok(segments.length >= 3);
  const first = segments[0]!;
  await Deno.truncate(first, (await Deno.stat(first)).size - 5);
  await assert.rejects(() => FileLog.open(tmp.path), LogCorruptError);
});

Deno.test("FileLog.open() takes sealed segments at their sealed length; read() still refuses their damage", async () => {
  await using tmp = await tempDir();
  const segments = await logWith(tmp.path, 20, 600);
  const manifest = (await readManifest(tmp.path))!;
  for (const [i, entry] of manifest.segments.entries()) {
    const sealed = i < manifest.segments.length - 1;
    assert.equal(entry.bytes, sealed ? (await Deno.stat(segments[i]!)).size : undefined);
  }
  await flipByte(segments[0]!, 30);
  const log = await FileLog.open(tmp.path);
  assert.equal(log.head, 20, "open checks the active segment, not the sealed ones");
  assert.deepEqual((await collect(log.read(19))).map((e) => e.seq), [19, 20]);
  await assert.rejects(() => collect(log.read()), (error: unknown) => {
    assert.ok(error instanceof LogCorruptError);
    assert.equal(error.segment, segments[0]);
    return true;
  });
  await log.close();
  assert.equal((await checkLog(tmp.path)).problems.length, 1);
});

Deno.test("checkLog() reports a sealed segment cut at a record boundary, which open refuses", async () => {
  await using tmp = await tempDir();
  const segments = await logWith(tmp.path, 20, 600);
  const sealed = segments[0]!;
  const { records } = scanSegment(await Deno.readFile(sealed));
  await Deno.truncate(sealed, records.at(-1)!.offset);
  await assert.rejects(() => FileLog.open(tmp.path), /was sealed at/);
  const check = await checkLog(tmp.path);
  assert.equal(check.problems.length, 1);
  assert.match(check.problems[0]!.message, /sealed at/);
});

Deno.test("FileLog.open() scans sealed segments an older manifest gave no length, until the next roll", async () => {
  await using tmp = await tempDir();
  const segments = await logWith(tmp.path, 20, 600);
  const manifest = (await readManifest(tmp.path))!;
  const older = manifest.segments.map(({ file, firstSeq }) => ({ file, firstSeq }));
  await Deno.writeTextFile(
    join(tmp.path, "MANIFEST"),
    JSON.stringify({ ...manifest, segments: older }),
  );
  await flipByte(segments[0]!, 30);
  await assert.rejects(() => FileLog.open(tmp.path), LogCorruptError);
  await flipByte(segments[0]!, 30);
  const log = await FileLog.open(tmp.path, { segmentBytes: 600 });
  for (let i = 0; i < 50 && (await readManifest(tmp.path))!.segments.length === older.length; i++) {
    await log.append([remembered("more")]);
  }
  await log.close();
  const rolled = (await readManifest(tmp.path))!.segments;
  assert.ok(rolled.length > older.length, "the log rolled");
  assert.ok(rolled.slice(0, -1).every((entry) => entry.bytes !== undefined));
  assert.equal(rolled.at(-1)!.bytes, undefined);
});

Deno.test("FileLog.open() names a missing segment and the events it held", async () => {
  await using tmp = await tempDir();
  const segments = await logWith(tmp.path, 20, 600);
  await Deno.remove(segments[1]!);
  await assert.rejects(
    () => FileLog.open(tmp.path),
    (error: Error) =>
      error instanceof LogCorruptError &&
      /is missing: events \d+ to \d+ are gone/.test(error.message),
  );
});

Deno.test("checkLog() lists every problem and repairLog() keeps every readable event", async () => {
  await using tmp = await tempDir();
  const segments = await logWith(tmp.path, 30, 600);
  const before = await checkLog(tmp.path);
  assert.deepEqual([before.events, before.problems.length], [30, 0]);
  await Deno.remove(segments[1]!);
  await flipByte(segments[3]!, 30);
  const check = await checkLog(tmp.path);
  assert.equal(check.problems.length, 2);
  const lostToMissing = 30 - check.events;
  assert.ok(lostToMissing > 1);
  const repaired = await repairLog(tmp.path, 600);
  assert.equal(repaired.events, check.events);
  const log = await FileLog.open(tmp.path, { segmentBytes: 600 });
  const seqs = (await collect(log.read())).map((e) => e.seq);
  assert.equal(seqs.length, check.events);
  assert.equal(seqs.at(-1), 30);
  assert.equal(log.head, 30);
  await log.close();
  assert.deepEqual((await checkLog(tmp.path)).problems, []);
});

Deno.test("FileLog rolls segments and reads across them from any sequence number", async () => {
  await using tmp = await tempDir();
  const segments = await logWith(tmp.path, 40, 500);
  assert.ok(segments.length > 4);
  const log = await FileLog.open(tmp.path, { segmentBytes: 500 });
  for (const from of [1, 13, 27, 40]) {
    assert.deepEqual(
      (await collect(log.read(from))).map((e) => e.seq),
      Array.from({ length: 41 - from }, (_, i) => from + i),
    );
  }
  await log.close();
});

Deno.test("FileLog.read() of the active segment from any sequence number gives the same events after appends, a reopen and a rewrite", async () => {
  await using tmp = await tempDir();
  const seqs = (events: Array<{ seq: number }>) => events.map((e) => e.seq);
  const from = (log: FileLog, seq: number) => collect(log.read(seq));
  let log = await FileLog.open(tmp.path);
  // Batches of several sizes, so noted records fall inside batches and at their starts.
  for (let i = 0, size = 1; i < 150; i += size, size = (size % 7) + 1) {
    await log.append(Array.from({ length: size }, (_, j) => remembered(`m${i + j}`)));
  }
  const head = log.head;
  const all = await from(log, 1);
  assert.equal(all.length, head);
  const check = async (kept: typeof all) => {
    for (let seq = 1; seq <= head + 1; seq++) {
      assert.deepEqual(await from(log, seq), kept.filter((e) => e.seq >= seq), `from ${seq}`);
    }
  };
  await check(all);
  await log.close();
  log = await FileLog.open(tmp.path);
  await check(all);
  await log.rewrite((event) => event.seq % 3 !== 0);
  await check(all.filter((e) => e.seq % 3 !== 0));
  await log.append([remembered("after")]);
  assert.deepEqual(
    seqs(await from(log, head - 1)),
    [head - 1, head, head + 1].filter((s) => s % 3),
  );
  await log.close();
});

Deno.test("FileLog.read() from late in the active segment refuses damage there", async () => {
  await using tmp = await tempDir();
  const [segment] = await logWith(tmp.path, 100, 1 << 20);
  const log = await FileLog.open(tmp.path);
  const late = (await collect(log.read(90)))[0]!;
  assert.equal(late.seq, 90);
  const offset = scanSegment(await Deno.readFile(segment!)).records.find((r) => r.seq === 95)!
    .offset;
  await flipByte(segment!, offset + 25);
  await assert.rejects(() => collect(log.read(90)), (error: unknown) => {
    assert.ok(error instanceof LogCorruptError);
    assert.equal(error.segment, segment);
    assert.equal(error.offset, offset);
    return true;
  });
  await log.close();
});

Deno.test("FileLog.rewrite() leaves no stray files and survives reopening", async () => {
  await using tmp = await tempDir();
  await logWith(tmp.path, 30, 500);
  const log = await FileLog.open(tmp.path, { segmentBytes: 500 });
  await log.rewrite((event) => event.seq > 20);
  await log.close();
  const files = [...Deno.readDirSync(tmp.path)].map((entry) => entry.name);
  const manifest = (await readManifest(tmp.path))!;
  assert.deepEqual(
    files.filter((f) => f.endsWith(".seg")).sort(),
    manifest.segments.map((s) => s.file).sort(),
  );
  const again = await FileLog.open(tmp.path);
  assert.deepEqual((await collect(again.read())).map((e) => e.seq), [
    21,
    22,
    23,
    24,
    25,
    26,
    27,
    28,
    29,
    30,
  ]);
  await again.close();
});

Deno.test("FileLog.open() refuses an active segment that lost acknowledged events, however it was cut, after a rewrite too", async (t) => {
  const cases = [
    { cut: "by half", rewritten: false },
    { cut: "at a record boundary", rewritten: false },
    { cut: "at a record boundary", rewritten: true },
    { cut: "in its last record's bytes", rewritten: true },
  ];
  for (const { cut, rewritten } of cases) {
    await t.step(`${cut}${rewritten ? ", after a purge rewrote the log" : ""}`, async () => {
      await using tmp = await tempDir();
      let [segment] = await logWith(tmp.path, 100, 1 << 20);
      if (rewritten) {
        // As a purge leaves it: the last events dropped, so the head is past the last record.
        const log = await FileLog.open(tmp.path);
        await log.rewrite((event) => event.seq <= 98);
        await log.close();
        [segment] = (await readManifest(tmp.path))!.segments.map((s) => join(tmp.path, s.file));
      }
      const records = scanSegment(await Deno.readFile(segment!)).records;
      const size = (await Deno.stat(segment!)).size;
      if (cut === "in its last record's bytes") await flipByte(segment!, size - 4);
      else {
        await Deno.truncate(
          segment!,
          cut === "by half" ? Math.floor(size / 2) : records.at(-3)!.offset,
        );
      }
      const length = (await Deno.stat(segment!)).size;
      await assert.rejects(() => FileLog.open(tmp.path), (error: unknown) => {
        assert.ok(error instanceof LogCorruptError);
        assert.match(error.message, /lost records that were acknowledged: .* up to event 100/);
        assert.match(error.message, /cairn verify --repair/);
        return true;
      });
      assert.equal((await Deno.stat(segment!)).size, length, "nothing was cut on the way");
      const check = await checkLog(tmp.path);
      assert.ok(check.problems.some((p) => /acknowledged records are lost/.test(p.message)));

      const repaired = await repairLog(tmp.path);
      assert.ok(repaired.lost.length > 0, "the repair names what it could not keep");
      const log = await FileLog.open(tmp.path);
      assert.equal(log.head, 100, "no sequence number is given twice");
      assert.ok((await collect(log.read())).length < (rewritten ? 98 : 100));
      await log.close();
    });
  }
});

Deno.test("verify after a purge finds nothing lost and names the log's head; --repair keeps it", async () => {
  await using tmp = await tempDir();
  await logWith(tmp.path, 10, 1 << 20);
  const log = await FileLog.open(tmp.path);
  await log.rewrite((event) => event.seq !== 9 && event.seq !== 10);
  await log.close();
  const check = await checkLog(tmp.path);
  assert.deepEqual(check.problems, []);
  assert.deepEqual([check.events, check.head], [8, 10], "the head counts the dropped events");
  const repaired = await repairLog(tmp.path);
  assert.deepEqual(repaired.lost, []);
  const reopened = await FileLog.open(tmp.path);
  assert.equal(reopened.head, 10);
  const [next] = await reopened.append([remembered("after")]);
  assert.equal(next!.seq, 11);
  await reopened.close();
});

Deno.test("FileLog.open() never deletes a segment an out-of-date manifest does not list; repair takes it back", async () => {
  await using tmp = await tempDir();
  await logWith(tmp.path, 3, 256);
  const old = await Deno.readTextFile(join(tmp.path, "MANIFEST"));
  const files = await logWith(tmp.path, 12, 256);
  assert.ok(files.length > 2);
  await Deno.writeTextFile(join(tmp.path, "MANIFEST"), old);
  await Deno.remove(join(tmp.path, "ACKNOWLEDGED"));
  await assert.rejects(
    () => FileLog.open(tmp.path),
    /manifest does not list.*Nothing was deleted/s,
  );
  for (const file of files) assert.ok((await Deno.stat(file)).size > 0, file);
  const repaired = await repairLog(tmp.path);
  assert.equal(repaired.events, 15);
  const log = await FileLog.open(tmp.path);
  assert.equal(log.head, 15);
  await log.close();
});
