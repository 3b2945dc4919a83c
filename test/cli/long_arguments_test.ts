import assert from "node:assert/strict";
import { join } from "node:path";
import { cli, tempDir } from "../helpers.ts";

Deno.test("cairn takes arguments of tens of kilobytes: a long memory and a pasted issue as the query", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const word = "a".repeat(15_000);
  const remembered = await cli(["--store", store, "remember", `${word} then the billing note`]);
  assert.equal(remembered.code, 0, remembered.stderr.slice(0, 2000));
  assert.match(remembered.stdout, /remembered/);
  const issue = `Billing export fails.\n${
    "Traceback line in module billing.export\n".repeat(1500)
  }`;
  assert.ok(issue.length > 60_000 && issue.length <= 65_536);
  const recalled = await cli(["--store", store, "recall", issue, "--format", "json"]);
  assert.equal(recalled.code, 0, recalled.stderr.slice(0, 2000));
  assert.equal(JSON.parse(recalled.stdout).results.length, 1);
  const tooLong = await cli(["--store", store, "recall", "b ".repeat(40_000)]);
  assert.equal(tooLong.code, 2, "a usage error");
  assert.match(tooLong.stderr, /the query has 7999\d characters; the limit is 65536/);
});
