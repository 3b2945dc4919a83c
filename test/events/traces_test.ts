import assert from "node:assert/strict";
import { join } from "node:path";
import { MemoryLog } from "../../events/memory_log.ts";
import { filesHoldingAny, goneFromLog } from "../../events/traces.ts";
import { remembered, tempDir } from "../helpers.ts";

Deno.test("filesHoldingAny() finds a text as written or escaped in JSON, across the edge of two reads, in nested folders", async () => {
  await using tmp = await tempDir();
  const text = 'The staging token is "sk-1"\nrotate it';
  const padding = new Uint8Array((4 << 20) - 10).fill(0x61);
  const edge = new TextEncoder().encode(text);
  await Deno.writeFile(join(tmp.path, "edge.bin"), new Uint8Array([...padding, ...edge]));
  await Deno.mkdir(join(tmp.path, "nested"));
  await Deno.writeTextFile(join(tmp.path, "nested", "journal.jsonl"), JSON.stringify({ text }));
  await Deno.writeTextFile(join(tmp.path, "clean.txt"), "The staging token is elsewhere");
  assert.deepEqual(await filesHoldingAny(tmp.path, [text]), ["edge.bin", "nested/journal.jsonl"]);
  assert.deepEqual(await filesHoldingAny(tmp.path, []), []);
  assert.deepEqual(await filesHoldingAny(join(tmp.path, "missing"), [text]), []);
});

Deno.test("goneFromLog() keeps only the texts no event carries, whole or inside a longer one", async () => {
  const log = new MemoryLog();
  await log.append([
    remembered("a", 'Deploys go out on "Tuesdays" after the freeze'),
    remembered("b", "The cache uses Redis"),
  ]);
  const gone = await goneFromLog(log, [
    'go out on "Tuesdays"',
    "The cache uses Redis",
    "The staging token is sk-1",
  ]);
  assert.deepEqual(gone, ["The staging token is sk-1"]);
});
