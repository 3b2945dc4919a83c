import assert from "node:assert/strict";
import { join } from "node:path";
import { cairnInProcess as cairn } from "./in_process.ts";
import { visible } from "../../src/ops/format.ts";
import { tempDir } from "../helpers.ts";

Deno.test("dates the calendar does not have, and validity that ends before it starts, are refused", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const leap = await cairn(store, "remember", "x", "--valid-from", "2020-02-30");
  assert.equal(leap.code, 2, "a usage error");
  assert.match(leap.err, /--valid-from takes an ISO 8601 date, not "2020-02-30"/);
  const words = await cairn(store, "list", "--as-of", "March 7 2020");
  assert.notEqual(words.code, 0);
  const backwards = await cairn(
    store,
    "remember",
    "y",
    "--valid-from",
    "2024-05-01",
    "--valid-to",
    "2024-04-01",
  );
  assert.equal(backwards.code, 1);
  assert.match(backwards.err, /valid_to 2024-04-01 is before valid_from 2024-05-01/);
  const fine = await cairn(
    store,
    "remember",
    "z",
    "--valid-from",
    "2024-02-29",
    "--valid-to",
    "2024-03-01T10:00:00Z",
  );
  assert.equal(fine.code, 0, fine.err);
  // The range is shown wherever the memory is: what was stored, get and list.
  assert.match(fine.out, /- \[note\] z \[valid 2024-02-29\.\.2024-03-01\] `mem_/);
  const listed = await cairn(store, "list");
  assert.match(listed.out, /- \[note\] z \[valid 2024-02-29\.\.2024-03-01\] `mem_/);
});

Deno.test("import refuses a pipe, a folder or a missing file with words, instead of blocking", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const fifo = join(tmp.path, "pipe");
  const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.ok(made.success);
  const piped = await cairn(store, "import", fifo);
  assert.equal(piped.code, 1);
  assert.match(piped.err, /pipe is not a regular file \(a folder, a pipe or a device\)/);
  const folder = await cairn(store, "import", tmp.path);
  assert.match(folder.err, /is not a regular file/);
  const missing = await cairn(store, "import", join(tmp.path, "nope.jsonl"));
  assert.match(missing.err, /cannot read .*nope\.jsonl/);
});

Deno.test("visible() writes control characters of names and paths as escapes", () => {
  assert.equal(visible("a\nb.py"), "a\\nb.py");
  assert.equal(visible("c\td\r\u0000"), "c\\td\\r\\u0000");
  assert.equal(visible("src/ok.ts"), "src/ok.ts");
});
