import assert from "node:assert/strict";
import { join } from "node:path";
import { shippedModelDir } from "../../src/embed/load.ts";
import { TextTokenizer } from "../../src/embed/tokenizer.ts";
import { SHIPPED_MODELS } from "./shipped_models.ts";

const PARITY = new URL("../fixtures/tokenizer/parity.json", import.meta.url);

async function tokenizer(maxTokens = 512, model = SHIPPED_MODELS[0]!): Promise<TextTokenizer> {
  return await TextTokenizer.load(join(shippedModelDir(model), "tokenizer.json"), maxTokens);
}

for (const model of SHIPPED_MODELS) {
  Deno.test(`TextTokenizer.encode() matches the Python tokenizer's ids on the parity fixture (${model})`, async () => {
    const tok = await tokenizer(512, model);
    const cases: { text: string; ids: number[] }[] = JSON.parse(await Deno.readTextFile(PARITY));
    assert.equal(cases.length, 200);
    assert.ok(
      cases.some((c) => c.ids.length === 512),
      "the fixture should include truncated texts",
    );
    const mismatches = cases.filter((c) => tok.encode(c.text).ids.join() !== c.ids.join());
    assert.deepEqual(mismatches.map((c) => c.text.slice(0, 60)), []);
  });
}

Deno.test("TextTokenizer.encode() truncates long texts keeping [SEP] last and says so", async () => {
  const tok = await tokenizer(16);
  const long = tok.encode("word ".repeat(100));
  assert.equal(long.ids.length, 16);
  assert.equal(long.ids[0], 101);
  assert.equal(long.ids.at(-1), 102);
  assert.equal(long.truncated, true);
  const short = tok.encode("two words");
  assert.equal(short.truncated, false);
  assert.deepEqual(short.ids, [101, 2048, 2616, 102]);
});
