import assert from "node:assert/strict";
import { join } from "node:path";
import { sha256HexSync } from "../../events/blobs.ts";
import { type TextDoc, type TextOp, TextStore } from "../../projections/text_store.ts";
import { tempDir } from "../helpers.ts";

const doc = (key: string): TextOp => ({
  key,
  source: "memory",
  id: key,
  project: null,
  fields: [key],
});

Deno.test("TextStore.open() gives the documents as of its image and the journal's ops after it, however many", async () => {
  await using tmp = await tempDir();
  const { store } = await TextStore.open(tmp.path);
  const docs = Array.from({ length: 250_000 }, (_, i) => doc(`d-${i}`) as TextDoc);
  await store.snapshot(docs);
  await store.writeImage(["image of the documents"]);
  // One batch larger than a call's argument list may be (a project deleted at a million chunks).
  const removals = docs.map(({ key }) => ({ key, removed: true as const }));
  await store.append([...removals, doc("c")], () => []);
  store.close();

  const opened = await TextStore.open(tmp.path);
  assert.equal(opened.store.hasImage, true);
  assert.equal(opened.docs.size, 250_000);
  assert.equal(opened.tail.length, 250_001);
  assert.equal(new TextDecoder().decode(opened.store.readImage()), "image of the documents");
  opened.store.close();
});

Deno.test("TextStore.open() drops an image that does not end on a journal line, and a snapshot drops the image", async () => {
  await using tmp = await tempDir();
  const { store } = await TextStore.open(tmp.path);
  await store.append([doc("a")], () => []);
  await store.writeImage(["image"]);
  store.close();
  const [name] = [...Deno.readDirSync(tmp.path)].map((e) => e.name).filter((n) =>
    n.endsWith(".image")
  );
  await Deno.rename(join(tmp.path, name!), join(tmp.path, "index-3.image"));

  const opened = await TextStore.open(tmp.path);
  assert.equal(opened.store.hasImage, false);
  assert.deepEqual([...opened.docs.keys()], ["a"]);
  assert.deepEqual(opened.tail, []);
  assert.equal([...Deno.readDirSync(tmp.path)].some((e) => e.name.endsWith(".image")), false);
  await opened.store.writeImage(["image"]);
  await opened.store.snapshot([doc("a") as TextDoc]);
  assert.equal(opened.store.hasImage, false);
  assert.equal([...Deno.readDirSync(tmp.path)].some((e) => e.name.endsWith(".image")), false);
  opened.store.close();
});

Deno.test("TextStore.open() deletes what an earlier process's interrupted write left, and nothing else", async () => {
  await using dir = await tempDir();
  const { store } = await TextStore.open(dir.path);
  store.close();
  const leftovers = [
    "index-120.image.0f8c3b52-6a0e-4c55-9d2e-7b1f0e6a9c41.tmp",
    "snapshot.jsonl.1a2b3c4d-0000-4000-8000-123456789abc.tmp",
  ];
  const ownWrite = "index-130.image.2b3c4d5e-0000-4000-8000-123456789abc.tmp";
  for (const name of [...leftovers, ownWrite, "notes.tmp"]) {
    await Deno.writeTextFile(join(dir.path, name), "x");
  }
  const beforeThisProcess = new Date(performance.timeOrigin - 60_000);
  for (const name of leftovers) {
    await Deno.utime(join(dir.path, name), beforeThisProcess, beforeThisProcess);
  }
  const reopened = await TextStore.open(dir.path);
  reopened.store.close();
  const names = [...Deno.readDirSync(dir.path)].map((entry) => entry.name);
  assert.ok(names.includes("notes.tmp"));
  assert.ok(names.includes(ownWrite), "a write of this process may be under way");
  assert.ok(leftovers.every((name) => !names.includes(name)));
});

/** A chunk and a turn as stores kept them before texts were kept by reference: the text inline, last. */
const inlineChunk = {
  key: "chunk:p:c1",
  source: "code",
  id: "c1",
  project: "p",
  file: "p\0a.ts",
  fields: ["run", "a.ts", "function run() {}"],
};
const inlineTurn = { key: "turn:s:1", source: "turn", id: "s:1", project: "p", fields: ["fix it"] };
const byReference = {
  chunk: { ...inlineChunk, fields: ["run", "a.ts"], blob: sha256HexSync("function run() {}") },
  turn: { ...inlineTurn, fields: [], blob: sha256HexSync("fix it") },
};

/** A store written in the old form: the chunk and a memory in the snapshot, the turn journaled. */
async function inlineStore(dir: string, imageAt: (journalBytes: number) => number) {
  const lines = (values: unknown[]) => values.map((value) => JSON.stringify(value) + "\n").join("");
  await Deno.writeTextFile(join(dir, "snapshot.jsonl"), lines([inlineChunk, doc("m")]));
  const journal = lines([[inlineTurn]]);
  await Deno.writeTextFile(join(dir, "journal.jsonl"), journal);
  await Deno.writeTextFile(join(dir, `index-${imageAt(journal.length)}.image`), "image");
}

Deno.test("TextStore.open() takes chunks and turns kept with their text for references to its blob, and writes them so", async () => {
  await using tmp = await tempDir();
  await inlineStore(tmp.path, (journalBytes) => journalBytes);

  const opened = await TextStore.open(tmp.path);
  assert.deepEqual(opened.docs.get("chunk:p:c1"), byReference.chunk);
  assert.deepEqual(opened.docs.get("turn:s:1"), byReference.turn);
  assert.deepEqual(opened.docs.get("m"), doc("m"));
  assert.deepEqual(opened.tail, []);
  opened.store.close();
  const snapshot = await Deno.readTextFile(join(tmp.path, "snapshot.jsonl"));
  assert.ok(!snapshot.includes("function run") && !snapshot.includes("fix it"));
  assert.equal(await Deno.readTextFile(join(tmp.path, "journal.jsonl")), "");
  assert.equal(await Deno.readTextFile(join(tmp.path, "index-0.image")), "image");

  const again = await TextStore.open(tmp.path);
  assert.deepEqual(again.docs, opened.docs);
  assert.equal(again.store.hasImage, true);
  again.store.close();
});

Deno.test("TextStore.open() writes an old-form snapshot as of its image when ops follow the image", async () => {
  await using tmp = await tempDir();
  await inlineStore(tmp.path, () => 0);
  const journal = await Deno.readTextFile(join(tmp.path, "journal.jsonl"));

  const opened = await TextStore.open(tmp.path);
  assert.deepEqual(opened.docs.get("chunk:p:c1"), byReference.chunk);
  assert.deepEqual(opened.tail, [byReference.turn]);
  opened.store.close();
  assert.ok(!(await Deno.readTextFile(join(tmp.path, "snapshot.jsonl"))).includes("function run"));
  assert.equal(await Deno.readTextFile(join(tmp.path, "journal.jsonl")), journal);
  assert.equal(await Deno.readTextFile(join(tmp.path, "index-0.image")), "image");

  const again = await TextStore.open(tmp.path);
  assert.deepEqual(again.docs, opened.docs);
  assert.deepEqual(again.tail, opened.tail);
  again.store.close();
});
