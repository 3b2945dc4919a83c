import assert from "node:assert/strict";
import { z } from "zod";
import { StoreLockedError } from "../../events/lock.ts";
import { LogCorruptError } from "../../events/log.ts";
import { classify } from "../../src/ops/failure.ts";
import { NotFoundError, UserError } from "../../src/errors.ts";

Deno.test("classify() tells input to fix, a missing thing, a store not ready or damaged, a full disk and a fault apart", () => {
  const zod = z.object({ kind: z.enum(["a", "b"]) }).safeParse({ kind: "c" }).error!;
  assert.deepEqual(classify(zod), { kind: "bad_input", message: "kind is a or b" });
  assert.equal(classify(new UserError("content is empty")).kind, "bad_input");
  assert.equal(classify(new NotFoundError("no memory with id m")).kind, "not_found");
  assert.equal(classify(new StoreLockedError("/s", { pid: 42 })).kind, "not_ready");
  assert.equal(classify(new LogCorruptError("bad record", "/s/log/1", 0)).kind, "damaged");
  const full = classify(Object.assign(new Error("No space left on device (os error 28)"), {
    code: "ENOSPC",
  }));
  assert.equal(full.kind, "disk_full");
  assert.match(full.message, /free some space and run it again/);
  const denied = classify(
    new Deno.errors.PermissionDenied("Permission denied (os error 13): open '/s/LOCK'"),
  );
  assert.equal(denied.kind, "bad_input");
  assert.match(
    denied.message,
    /open '\/s\/LOCK': cairn writes in its store .*\(--store, CAIRN_HOME\)/,
  );
  assert.deepEqual(classify(new TypeError("x is undefined")), {
    kind: "internal",
    message: "x is undefined",
  });
});
