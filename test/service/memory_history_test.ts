import assert from "node:assert/strict";
import { MemoryLog } from "../../events/memory_log.ts";
import { UserError } from "../../src/errors.ts";
import { memoriesAsOf } from "../../src/service/memory_history.ts";
import { remembered } from "../helpers.ts";

Deno.test("memoriesAsOf() refuses a date that names no moment instead of answering with today", async () => {
  const log = new MemoryLog();
  await log.append([remembered("a")]);
  await assert.rejects(() => memoriesAsOf(log, "garbage"), UserError);
  await assert.rejects(() => memoriesAsOf(log, ""), /"" is not an ISO 8601 date/);
  assert.deepEqual([...(await memoriesAsOf(log, "2000-01-01")).keys()], []);
  assert.deepEqual([...(await memoriesAsOf(log, new Date().toISOString())).keys()], ["a"]);
});
