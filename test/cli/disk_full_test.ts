import assert from "node:assert/strict";
import { join } from "node:path";
import { cairnInProcess as cairn } from "./in_process.ts";
import { tempDir } from "../helpers.ts";

/** Mounts a tmpfs of `megabytes` at `dir`; false where this process may not mount (not root). */
async function mountTmpfs(dir: string, megabytes: number, remount = false): Promise<boolean> {
  const options = `${remount ? "remount," : ""}size=${megabytes}m`;
  const { success } = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", options, "tmpfs", dir],
    stdout: "null",
    stderr: "null",
  }).output().catch(() => ({ success: false }));
  return success;
}

/**
 * Unmounts `dir`. A store closed a moment ago may still have its graph's file
 * mapped until the native database is collected: tried again, then detached
 * lazily (the kernel frees it once nothing uses it), so the folder can go.
 */
async function unmount(dir: string): Promise<void> {
  const umount = async (...args: string[]) =>
    (await new Deno.Command("umount", { args: [...args, dir], stdout: "null", stderr: "null" })
      .output()).success;
  for (let attempt = 0; attempt < 10; attempt++) {
    if (await umount()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.ok(await umount("-l"), `${dir} could not be unmounted`);
}

Deno.test("a full disk: import says what it stored, reads go on, writes are refused, and the same import finishes once there is space", async (t) => {
  await using tmp = await tempDir();
  const disk = join(tmp.path, "disk");
  await Deno.mkdir(disk);
  // 64 MiB stay free for cairn's reserve: about 6 MiB can be written, a part of the import.
  if (!await mountTmpfs(disk, 70)) {
    console.log("skipped: mounting a small tmpfs needs root; the full-disk test did not run");
    return;
  }
  const error = console.error;
  console.error = () => {};
  try {
    const store = join(disk, "store");
    // No model: the vectors wait, and the test measures the log and the projections alone.
    await Deno.mkdir(store);
    await Deno.writeTextFile(
      join(store, "config.json"),
      JSON.stringify({ embedder: { kind: "onnx", model_dir: join(tmp.path, "no-model") } }),
    );
    const records = join(tmp.path, "records.jsonl");
    const count = 5_000;
    await Deno.writeTextFile(
      records,
      Array.from(
        { length: count },
        (_, i) =>
          JSON.stringify({
            id: `m${i}`,
            content: `memory ${i} about the ledger ${"z".repeat(700)}`,
          }),
      )
        .join("\n"),
    );
    await t.step("import stops and says how many it stored", async () => {
      const first = await cairn(store, "import", records);
      assert.equal(first.code, 1, first.err);
      const stored = Number(/imported (\d+) of 5000 memories/.exec(first.out)?.[1]);
      assert.ok(stored > 0 && stored < count, first.out);
      assert.match(first.err, /the disk is full|free on the disk/);
    });
    await t.step("reads answer from what the projections hold", async () => {
      const words = await cairn(store, "search-text", "ledger", "--limit", "3");
      assert.equal(words.code, 0, words.err);
      assert.match(words.out, /about the ledger/);
      const listed = await cairn(store, "list", "--limit", "2");
      assert.equal(listed.code, 0, listed.err);
      assert.equal((await cairn(store, "status")).code, 0);
    });
    await t.step("a write is refused with what to do, and nothing half-written", async () => {
      const remembered = await cairn(store, "remember", "one more note");
      assert.equal(remembered.code, 1);
      assert.match(remembered.err, /the disk is full .*free some space/);
    });
    await t.step("with space again the same import adds only what is missing", async () => {
      assert.ok(await mountTmpfs(disk, 400, true), "remount with more space");
      const again = await cairn(store, "import", records);
      assert.equal(again.code, 0, again.err);
      const all = await cairn(store, "status", "--json");
      assert.equal(JSON.parse(all.out).head, count, "each record once, no duplicate");
    });
  } finally {
    console.error = error;
    await unmount(disk);
  }
});
