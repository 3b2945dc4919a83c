import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFileAtomic } from "../../events/durable_fs.ts";
import { fileLines } from "../../events/file_lines.ts";
import { collect, tempDir } from "../helpers.ts";

Deno.test("writeFileAtomic() writes parts in order, and fileLines() reads them back across blocks, offsets exact", async () => {
  await using tmp = await tempDir();
  const path = join(tmp.path, "lines.jsonl");
  // Lines longer than a read block, and many-byte characters cut by the block edges.
  const lines = ["short", "é".repeat(700_000), "", "ok ✓", "x".repeat(3_000_000), "last"];
  const written = await writeFileAtomic(path, lines.map((line) => `${line}\n`));
  const bytes = await Deno.readFile(path);
  assert.equal(written, bytes.length);
  const read = await collect(fileLines(path));
  assert.deepEqual(read.map((line) => line.text), lines);
  assert.ok(read.every((line) => line.complete));
  for (const line of read) {
    assert.equal(new TextDecoder().decode(bytes.subarray(line.offset, line.next - 1)), line.text);
  }
  assert.equal(read.at(-1)!.next, bytes.length);

  await Deno.writeTextFile(path, "torn", { append: true });
  const torn = (await collect(fileLines(path))).at(-1)!;
  assert.deepEqual([torn.text, torn.complete, torn.next], ["torn", false, bytes.length + 4]);
  assert.deepEqual(await collect(fileLines(await emptyFile(tmp.path))), []);
  assert.deepEqual(
    [...Deno.readDirSync(tmp.path)].map((entry) => entry.name).sort(),
    ["empty", "lines.jsonl"],
    "no temporary file is left",
  );
});

async function emptyFile(dir: string): Promise<string> {
  const path = join(dir, "empty");
  await writeFileAtomic(path, "");
  return path;
}
