import assert from "node:assert/strict";
import { join } from "node:path";
import { currentHolder, lastHolder, StoreLock, StoreLockedError } from "../../events/lock.ts";
import { tempDir } from "../helpers.ts";

Deno.test("the lock names its holder: pid and command line while held, none once let go", async () => {
  await using tmp = await tempDir();
  assert.equal(await currentHolder(tmp.path), undefined, "a store with no LOCK yet");
  await assert.rejects(Deno.stat(join(tmp.path, "LOCK")), Deno.errors.NotFound, "nor made one");
  const lock = await StoreLock.acquire(tmp.path, 0);
  try {
    assert.deepEqual(await currentHolder(tmp.path), { pid: Deno.pid, args: Deno.args });
    const refused = await StoreLock.acquire(tmp.path, 0).catch((error) => error);
    assert.ok(refused instanceof StoreLockedError);
    assert.deepEqual(refused.holder, { pid: Deno.pid, args: Deno.args });
    assert.match(refused.message, new RegExp(`is in use by process ${Deno.pid}`));
  } finally {
    await lock.release();
  }
  assert.equal(await currentHolder(tmp.path), undefined, "let go");
  assert.equal((await lastHolder(tmp.path))?.pid, Deno.pid, "the last holder stays written");
});

Deno.test("a LOCK written by an older cairn, or garbled, gives what it can", async () => {
  await using tmp = await tempDir();
  const write = (text: string) => Deno.writeTextFile(join(tmp.path, "LOCK"), text);
  await write("4242\n");
  assert.deepEqual(await lastHolder(tmp.path), { pid: 4242 });
  await write('4242\n["--no-owner","reembed"]\n');
  assert.deepEqual(await lastHolder(tmp.path), { pid: 4242, args: ["--no-owner", "reembed"] });
  await write("4242\n[1, 2]\n");
  assert.deepEqual(await lastHolder(tmp.path), { pid: 4242 });
  await write("not a pid\n");
  assert.equal(await lastHolder(tmp.path), undefined);
  const error = new StoreLockedError("/s", { pid: 4242, args: ["--no-owner", "reembed"] });
  assert.equal(
    error.message,
    "store /s is in use by process 4242 (`cairn --no-owner reembed`); " +
      "stop it or wait for it to finish, or use another --store",
  );
});
