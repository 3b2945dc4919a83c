import assert from "node:assert/strict";
import { type Bm25Image, Bm25Index, type Bm25Options } from "../../projections/text_bm25.ts";
import { decodeImages, encodeImages } from "../../projections/text_image.ts";

const words = (text: string) => text.toLowerCase().split(/\W+/).filter(Boolean);

/** BM25 computed from scratch over `docs` for one query: the figures the index must give. */
function expected(
  docs: ReadonlyMap<string, { text: string; meta: number }>,
  query: string,
  options: Bm25Options,
  accept: (meta: number) => boolean,
): Array<{ key: string; score: number }> {
  const { k1 = 1.2, b = 0.75, delta = 0, coord = false } = options;
  const tokens = new Map([...docs].map(([key, doc]) => [key, words(doc.text)]));
  const average = [...tokens.values()].reduce((sum, t) => sum + t.length, 0) / docs.size || 1;
  const scores: Array<{ key: string; score: number }> = [];
  for (const [key, doc] of docs) {
    if (!accept(doc.meta)) continue;
    const own = tokens.get(key)!;
    let score = 0;
    let matched = 0;
    for (const term of new Set(words(query))) {
      const tf = own.filter((t) => t === term).length;
      if (tf === 0) continue;
      const df = [...tokens.values()].filter((t) => t.includes(term)).length;
      const idf = Math.log(1 + (docs.size - df + 0.5) / (df + 0.5));
      score += idf * (delta + tf * (k1 + 1) / (tf + k1 * (1 - b + b * own.length / average)));
      matched++;
    }
    if (matched > 0) scores.push({ key, score: coord ? score * matched : score });
  }
  return scores.sort((x, y) => y.score - x.score || (x.key < y.key ? -1 : 1));
}

/** `index` saved as an image file's bytes and loaded again. */
function reloaded(index: Bm25Index<number>, options: Bm25Options): Bm25Index<number> {
  const bytes = new Uint8Array(
    [...encodeImages({ only: index.toImage() }, "words")].flatMap((part) => [...part]),
  );
  const images = decodeImages(bytes, "words")!;
  return Bm25Index.fromImage(images.only as Bm25Image<number>, words, options);
}

Deno.test("Bm25Index scores as BM25 from scratch does, through upserts and removals, and keeps insertion order", () => {
  const vocabulary = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split(" ");
  let seed = 7;
  const random = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
  for (const options of [{}, { delta: 0.5, coord: true }] as Bm25Options[]) {
    let index = new Bm25Index<number>(words, options);
    const docs = new Map<string, { text: string; meta: number }>();
    // Enough churn that removed documents outnumber live ones and the postings are compacted.
    for (let step = 0; step < 12_000; step++) {
      const key = `doc-${random(300)}`;
      if (random(4) === 0) {
        assert.equal(index.delete(key), docs.delete(key));
        continue;
      }
      const text = Array.from({ length: 1 + random(12) }, () => vocabulary[random(10)]).join(" ");
      const doc = { text, meta: random(3) };
      index.set(key, doc.text, doc.meta);
      docs.delete(key);
      docs.set(key, doc);
      if (step % 1000 !== 999) continue;
      // Every other check is of an index saved and loaded again, which then takes the next changes.
      if (step % 2000 === 999) index = reloaded(index, options);
      assert.equal(index.size, docs.size);
      assert.deepEqual([...index.keys()], [...docs.keys()]);
      const key0 = [...docs.keys()][0]!;
      assert.equal(index.meta(key0), docs.get(key0)!.meta);
      for (const query of ["alpha", "beta gamma", "theta iota kappa unknown"]) {
        const accept = (meta: number) => meta !== 1;
        const hits = index.search(query, 20, accept);
        const want = expected(docs, query, options, accept).slice(0, 20);
        assert.deepEqual(hits.map((hit) => hit.key), want.map((hit) => hit.key));
        for (const [i, hit] of hits.entries()) {
          assert.ok(Math.abs(hit.score - want[i]!.score) < 1e-9, `${query}: ${hit.key}`);
          assert.equal(hit.meta, docs.get(hit.key)!.meta);
        }
      }
    }
  }
  const index = new Bm25Index<null>(words);
  index.set("a", "alpha", null);
  index.clear();
  assert.deepEqual([index.size, index.search("alpha", 5)], [0, []]);
  assert.equal(index.meta("a"), undefined);
});

Deno.test("decodeImages() refuses an image of another tokenizer, a cut one and one whose parts disagree", () => {
  const index = new Bm25Index<number>(words);
  index.set("a", "alpha beta", 1);
  index.set("b", "beta gamma", 2);
  const image = index.toImage();
  const bytesOf = (parts: Iterable<Uint8Array>) =>
    new Uint8Array([...parts].flatMap((part) => [...part]));
  const bytes = bytesOf(encodeImages({ only: image }, "words"));
  assert.ok(decodeImages(bytes, "words"));
  assert.equal(decodeImages(bytes, "other words"), undefined);
  assert.equal(decodeImages(bytes.subarray(0, bytes.length - 4), "words"), undefined);
  assert.equal(decodeImages(new Uint8Array(0), "words"), undefined);
  const badPairs = { ...image, pairs: image.pairs.map((value, i) => i % 2 === 0 ? 99 : value) };
  assert.equal(
    decodeImages(bytesOf(encodeImages({ only: badPairs }, "words")), "words"),
    undefined,
  );
  const hole = { ...image, keys: [image.keys[0]!, null as unknown as string] };
  assert.equal(decodeImages(bytesOf(encodeImages({ only: hole }, "words")), "words"), undefined);
});

Deno.test("Bm25Index.toImage() leaves out a removed document that had no terms", () => {
  const index = new Bm25Index<number>(words);
  index.set("a", "hello world", 1);
  index.set("b", "!!!", 2);
  index.set("c", "hello there again", 3);
  index.delete("b");
  const loaded = reloaded(index, {});
  assert.equal(loaded.size, 2);
  assert.deepEqual(loaded.toImage().keys, ["a", "c"]);
  assert.deepEqual(loaded.search("hello", 5), index.search("hello", 5));
});

Deno.test("Bm25Index's share is the score over the best reachable: comparable across indexes", () => {
  for (const options of [{}, { delta: 0.5, coord: true }] as Bm25Options[]) {
    const small = new Bm25Index<null>(words, options);
    small.set("both", "postgres billing postgres billing postgres billing", null);
    small.set("one", "postgres", null);
    const large = new Bm25Index<null>(words, options);
    for (let i = 0; i < 50; i++) {
      large.set(`noise-${i}`, `function handler${i} returns value`, null);
    }
    large.set("one", "billing code path", null);
    const [both, one] = small.search("postgres billing", 5);
    assert.deepEqual([both!.key, one!.key], ["both", "one"]);
    for (const hit of [both!, one!]) assert.ok(hit.share > 0 && hit.share <= 1, `${hit.share}`);
    // Matching every word of the query beats matching half, whatever each index's statistics.
    const [other] = large.search("postgres billing", 5);
    assert.ok(both!.share > other!.share);
    // Coordination orders documents within an index; the share leaves it out.
    const uncoordinated = options.coord ? one!.score / both!.score * 2 : one!.score / both!.score;
    assert.ok(Math.abs(one!.share / both!.share - uncoordinated) < 1e-12);
  }
});
