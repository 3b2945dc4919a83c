import assert from "node:assert/strict";
import { decodeEvent, EventDecodeError, validateEvent } from "../../events/schema.ts";
import { FileLog } from "../../events/file_log.ts";
import { remembered, tempDir } from "../helpers.ts";

const origin = {
  member: "alice",
  seq: 7,
  stream: "CAIRN",
  subject: "cairn.p.api",
  stream_seq: 3,
  ts: "2026-11-27T10:00:00.000Z",
};

Deno.test("decodeEvent() reads an event written before origins existed, without one", () => {
  const event = decodeEvent({ ...remembered("mem_1"), ts: "2026-01-01T00:00:00.000Z" });
  assert.equal("origin" in event, false);
});

Deno.test("validateEvent() keeps an event's origin and refuses a malformed one", () => {
  assert.deepEqual(validateEvent({ ...remembered("mem_1"), origin }).origin, origin);
  assert.throws(
    () => validateEvent({ ...remembered("mem_1"), origin: { member: "alice" } }),
    EventDecodeError,
  );
});

Deno.test("FileLog keeps an event's origin through append, close and open", async () => {
  await using dir = await tempDir();
  const log = await FileLog.open(dir.path);
  await log.append([remembered("mem_local"), { ...remembered("mem_remote"), origin }]);
  await log.close();
  const reopened = await FileLog.open(dir.path);
  const events = await Array.fromAsync(reopened.read());
  await reopened.close();
  assert.equal(events[0]!.origin, undefined);
  assert.deepEqual(events[1]!.origin, origin);
});
