import assert from "node:assert/strict";
import { MemoryLog } from "../../events/memory_log.ts";
import { MemoryHistory } from "../../projections/memory_history.ts";
import { UserError } from "../../src/errors.ts";
import { memoriesThen } from "../../src/service/memory_history.ts";
import { collect, remembered } from "../helpers.ts";

Deno.test("memoriesThen() refuses a date that names no moment instead of answering with today", async () => {
  const log = new MemoryLog();
  await log.append([remembered("a")]);
  const history = MemoryHistory.inMemory();
  await history.apply(await collect(log.read(1)));
  assert.throws(() => memoriesThen(history, "garbage"), UserError);
  assert.throws(() => memoriesThen(history, ""), /"" is not an ISO 8601 date/);
  assert.deepEqual([...memoriesThen(history, "2000-01-01").keys()], []);
  assert.deepEqual([...memoriesThen(history, new Date().toISOString()).keys()], ["a"]);
});
