import assert from "node:assert/strict";
import { join } from "node:path";
import { BlobStore } from "../../events/blobs.ts";
import type { StoredEvent } from "../../events/schema.ts";
import { TextProjection } from "../../projections/text.ts";
import { tempDir } from "../helpers.ts";
import { answersOf, fileIndexed, stored, threaded } from "./text_events.ts";

const QUERIES = ["pottery studio", "hook callback", "summer", "dispatch response", "send request"];

/** Two batches: the second forgets a memory of a thread, re-indexes a file and removes another. */
async function batches(blobs: BlobStore): Promise<[StoredEvent[], StoredEvent[]]> {
  return [
    stored(
      threaded("a", "Did you ever try pottery?"),
      threaded("b", "Yes, last summer at the community studio."),
      threaded("c", "Which studio was it?"),
      await fileIndexed(blobs, "p", "src/hooks.py", [
        { id: "h1", name: "register_hook", text: "def register_hook(event, hook): ..." },
        { id: "h2", name: "dispatch", text: "def dispatch(response): call every callback" },
      ]),
      await fileIndexed(blobs, "p", "src/session.py", [
        { id: "s1", name: "Session.send", text: "def send(self, request): adapters send it" },
      ]),
    ),
    stored(
      threaded("d", "I loved the studio."),
      { type: "memory.forgotten", v: 1, data: { id: "b" } },
      await fileIndexed(blobs, "p", "src/hooks.py", [
        { id: "h3", name: "register_hook", text: "def register_hook(event, hook, callback): ..." },
      ]),
      { type: "file.removed", v: 1, data: { project: "p", path: "src/session.py" } },
    ),
  ];
}

/** The images in a projection's folder. */
async function imagesIn(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.endsWith(".image")) names.push(entry.name);
  }
  return names;
}

/** What a projection that saw `applied` and built its indexes from scratch answers. */
async function fresh(dir: string, blobs: BlobStore, applied: StoredEvent[][]) {
  const projection = await TextProjection.open(dir, blobs);
  try {
    for (const batch of applied) await projection.apply(batch);
    return answersOf(projection, QUERIES);
  } finally {
    await projection.close();
  }
}

/** Blobs, the two batches, what a fresh projection answers after both, and a folder for another. */
async function setUp(tmp: string) {
  const blobs = new BlobStore(join(tmp, "blobs"));
  const [first, second] = await batches(blobs);
  const expected = await fresh(join(tmp, "fresh"), blobs, [first, second]);
  return { blobs, first, second, expected, dir: join(tmp, "text") };
}

/** Asserts that the projection in `dir`, opened again, answers `expected`. */
async function assertReopenedAnswers(
  dir: string,
  blobs: BlobStore,
  expected: ReturnType<typeof answersOf>,
): Promise<void> {
  const reopened = await TextProjection.open(dir, blobs);
  try {
    assert.deepEqual(answersOf(reopened, QUERIES), expected);
  } finally {
    await reopened.close();
  }
}

Deno.test("TextProjection saves its built indexes at close, and a reopened one searches that image", async () => {
  await using tmp = await tempDir();
  const blobs = new BlobStore(join(tmp.path, "blobs"));
  const [first, second] = await batches(blobs);
  const dir = join(tmp.path, "text");
  const projection = await TextProjection.open(dir, blobs);
  await projection.apply(first);
  await projection.close();
  assert.deepEqual(await imagesIn(dir), [], "nothing was searched: no index to save");

  const searched = await TextProjection.open(dir, blobs);
  const expected = answersOf(searched, QUERIES);
  await searched.close();
  const [image] = await imagesIn(dir);
  assert.ok(image);
  await assertReopenedAnswers(dir, blobs, expected);

  // Proof that the image is what is searched: another store's image under this one's name.
  const other = join(tmp.path, "other");
  const elsewhere = await TextProjection.open(other, blobs);
  await elsewhere.apply(second);
  const otherAnswers = answersOf(elsewhere, QUERIES);
  await elsewhere.close();
  const [otherImage] = await imagesIn(other);
  await Deno.rename(join(other, otherImage!), join(dir, image));
  const fooled = await TextProjection.open(dir, blobs);
  assert.deepEqual(
    answersOf(fooled, QUERIES).map((answer) => answer.search),
    otherAnswers.map((answer) => answer.search),
  );
  await fooled.close();
});

Deno.test("TextProjection indexes over its image what changed since, in the journal or in this process", async () => {
  await using tmp = await tempDir();
  const { blobs, first, second, expected } = await setUp(tmp.path);
  for (const where of ["journal", "process"]) {
    const dir = join(tmp.path, where);
    const projection = await TextProjection.open(dir, blobs);
    await projection.apply(first);
    answersOf(projection, QUERIES);
    await projection.close();
    const [image] = await imagesIn(dir);
    const changed = await TextProjection.open(dir, blobs);
    await changed.apply(second);
    if (where === "journal") {
      await changed.close();
      assert.deepEqual(
        await imagesIn(dir),
        [image],
        "the image is not rewritten for a few changes",
      );
      await assertReopenedAnswers(dir, blobs, expected);
    } else {
      assert.deepEqual(answersOf(changed, QUERIES), expected);
      await changed.close();
    }
  }
});

Deno.test("TextProjection builds from the documents when its image is damaged or of another tokenizer, then replaces it", async () => {
  await using tmp = await tempDir();
  const { blobs, first, second, expected, dir } = await setUp(tmp.path);
  const projection = await TextProjection.open(dir, blobs);
  await projection.apply(first);
  await projection.apply(second);
  answersOf(projection, QUERIES);
  await projection.close();
  const [image] = await imagesIn(dir);
  const path = join(dir, image!);
  const good = await Deno.readFile(path);
  // The same image but for one letter of what the tokenizer made of its probe text.
  const opening = '"tokenizer":"[\\"';
  const letter = new TextDecoder().decode(good.subarray(0, 200)).indexOf(opening) + opening.length;
  const otherTokenizer = good.slice();
  otherTokenizer[letter] = good[letter] === 0x71 ? 0x72 : 0x71;
  for (const damaged of [good.subarray(0, good.length / 2), otherTokenizer]) {
    await Deno.writeFile(path, damaged);
    await assertReopenedAnswers(dir, blobs, expected);
    assert.deepEqual(await Deno.readFile(path), good, "the image was written again at close");
  }
});

Deno.test("TextProjection.compact() replaces the image with the new snapshot's, or drops it when nothing is built", async () => {
  await using tmp = await tempDir();
  const { blobs, first, second, expected, dir } = await setUp(tmp.path);
  const projection = await TextProjection.open(dir, blobs);
  await projection.apply(first);
  answersOf(projection, QUERIES);
  await projection.close();
  assert.equal((await imagesIn(dir)).length, 1);

  const unbuilt = await TextProjection.open(dir, blobs);
  await unbuilt.apply(second);
  await unbuilt.compact();
  assert.deepEqual(await imagesIn(dir), [], "an image never outlives the journal it counts");
  assert.deepEqual(answersOf(unbuilt, QUERIES), expected);
  await unbuilt.compact();
  assert.deepEqual(await imagesIn(dir), ["index-0.image"]);
  await unbuilt.close();
  await assertReopenedAnswers(dir, blobs, expected);
});

Deno.test("TextProjection.saveIndexes() saves an image after a bulk write, and only then", async () => {
  await using tmp = await tempDir();
  const { blobs, first, second, expected, dir } = await setUp(tmp.path);
  const projection = await TextProjection.open(dir, blobs);
  await projection.apply(first);
  await projection.apply(second);
  await projection.saveIndexes();
  const [image] = await imagesIn(dir);
  assert.ok(image);
  const written = (await Deno.stat(join(dir, image))).mtime;
  await projection.saveIndexes();
  assert.deepEqual((await Deno.stat(join(dir, image))).mtime, written, "nothing new to save");
  await projection.close();
  await assertReopenedAnswers(dir, blobs, expected);
  assert.deepEqual(await imagesIn(dir), [image]);
});
