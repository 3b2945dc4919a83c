import assert from "node:assert/strict";
import { join } from "node:path";
import { BlobError, BlobStore, sha256Hex, sha256HexSync } from "../../events/blobs.ts";
import { tempDir } from "../helpers.ts";

Deno.test("BlobStore stores a text once under its sha256 and reads it back", async () => {
  await using tmp = await tempDir();
  const blobs = new BlobStore(tmp.path);
  const [a, b, c] = await blobs.putMany(["hello", "world", "hello"]);
  assert.equal(a, await sha256Hex("hello"));
  assert.equal(sha256HexSync("déjà vu 東京"), await sha256Hex("déjà vu 東京"));
  assert.equal(a, c);
  assert.equal(await blobs.get(b!), "world");
  assert.equal(new BlobStore(tmp.path).getSync(b!), "world");
  assert.deepEqual((await Array.fromAsync(blobs.list())).sort(), [a, b].sort());
  const marked = await blobs.put("\uFEFFstarts with a byte order mark");
  assert.equal(await new BlobStore(tmp.path).get(marked), "\uFEFFstarts with a byte order mark");
});

Deno.test("BlobStore.get() and getSync() refuse a damaged or missing blob", async () => {
  await using tmp = await tempDir();
  const blobs = new BlobStore(tmp.path);
  const hash = await blobs.put("content");
  await Deno.writeTextFile(join(tmp.path, hash.slice(0, 2), hash), "tampered");
  const damaged = (e: Error) => e instanceof BlobError && /damaged/.test(e.message);
  await assert.rejects(() => blobs.get(hash), damaged);
  assert.throws(() => blobs.getSync(hash), damaged);
  await blobs.remove(hash);
  const missing = (e: Error) => e instanceof BlobError && /missing/.test(e.message);
  await assert.rejects(() => blobs.get(hash), missing);
  assert.throws(() => blobs.getSync(hash), missing);
  await assert.rejects(() => blobs.get("../../etc/passwd"), BlobError);
  assert.throws(() => blobs.getSync("../../etc/passwd"), BlobError);
});

Deno.test("BlobStore with recentChars serves the texts it last wrote from memory, oldest evicted first", async () => {
  await using tmp = await tempDir();
  const blobs = new BlobStore(tmp.path, { recentChars: 11 });
  const [old, recent] = await blobs.putMany(["first", "second"]);
  await blobs.put("third");
  for (const hash of [old!, recent!]) {
    await Deno.writeTextFile(join(tmp.path, hash.slice(0, 2), hash), "tampered");
  }
  assert.equal(await blobs.get(recent!), "second", "still in memory");
  await assert.rejects(() => blobs.get(old!), /damaged/, "evicted: read from disk");
  await blobs.remove(recent!);
  await assert.rejects(() => blobs.get(recent!), /missing/);
  assert.equal(await new BlobStore(tmp.path).get(await blobs.put("third")), "third");
});
