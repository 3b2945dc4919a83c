import assert from "node:assert/strict";
import { join } from "node:path";
import { cliLine } from "../../src/cli/owner_cli.ts";
import { readOwnerRecord } from "../../src/mcp/owner_file.ts";
import { tempDir } from "../helpers.ts";

Deno.test("cliLine() reads each line the owner sends and refuses any other", () => {
  assert.deepEqual(cliLine('{"out":"remembered"}'), { out: "remembered" });
  assert.deepEqual(cliLine('{"err":"no such memory"}'), { err: "no such memory" });
  assert.deepEqual(cliLine('{"progress":"files 1/2"}'), { progress: "files 1/2" });
  assert.deepEqual(cliLine('{"progress":"files 1/2","done":0.5}'), {
    progress: "files 1/2",
    done: 0.5,
  });
  assert.deepEqual(cliLine('{"code":0}'), { code: 0 });
  for (
    const bad of [
      "[]",
      "null",
      '"out"',
      "{}",
      '{"out":1}',
      '{"out":"a","err":"b"}',
      '{"code":1.5}',
      '{"progress":"p","done":2}',
      '{"progress":"p","total":1}',
    ]
  ) {
    assert.throws(() => cliLine(bad), /the owner sent a line cairn does not know/, bad);
  }
  assert.throws(() => cliLine("{"), SyntaxError);
});

Deno.test("readOwnerRecord() keeps a record's pid, port and start, and refuses a malformed one", async () => {
  await using tmp = await tempDir();
  const write = (value: unknown) =>
    Deno.writeTextFile(join(tmp.path, "serve.json"), JSON.stringify(value));
  await write({ pid: 12, port: 4000, started_at: "2026-11-27T00:00:00Z", extra: true });
  assert.deepEqual(await readOwnerRecord(tmp.path), {
    pid: 12,
    port: 4000,
    started_at: "2026-11-27T00:00:00Z",
  });
  for (
    const bad of [
      null,
      [],
      { pid: 12, port: 4000 },
      { pid: "12", port: 4000, started_at: "x" },
      { pid: 12, port: 0, started_at: "x" },
      { pid: 12, port: 65536, started_at: "x" },
      { pid: 12, port: 40.5, started_at: "x" },
    ]
  ) {
    await write(bad);
    assert.equal(await readOwnerRecord(tmp.path), undefined, JSON.stringify(bad));
  }
});
