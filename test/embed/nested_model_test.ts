import assert from "node:assert/strict";
import { join } from "node:path";
import { shippedModelDir } from "../../src/embed/load.ts";
import { OnnxEmbedder } from "../../src/embed/onnx_embedder.ts";
import { hubEmbedder, modelCacheDir } from "../../src/service/hub_embedder.ts";
import { tempDir } from "../helpers.ts";
import { modelHub, nestedLayout } from "./model_hub.ts";

const TEXTS = [
  "A connection pool keeps a set of open database connections and hands them out to requests.",
  "Deploys happen on Tuesday mornings",
  'fn main() { println!("hello"); }',
];

function maxDifference(a: readonly Float32Array[], b: readonly Float32Array[]): number {
  assert.equal(a.length, b.length);
  return Math.max(...a.flatMap((vector, i) => [...vector].map((x, j) => Math.abs(x - b[i]![j]!))));
}

Deno.test("a hub model kept in onnx/model.onnx is downloaded into that subfolder and embeds as the shipped model does", async () => {
  await using store = await tempDir();
  const { manifest, serves } = await nestedLayout();
  await using hub = modelHub("org/nested", serves);
  const nested = hubEmbedder(
    { model: "org/nested", hub_url: hub.url, manifest },
    store.path,
    () => {},
  );
  const shipped = await OnnxEmbedder.open(shippedModelDir(), { verify: false });
  try {
    const got = await nested.embedDocuments(TEXTS);
    assert.deepEqual(
      hub.requests.map((r) => new URL(r.url).pathname).sort(),
      ["LICENSE", "onnx/model.onnx", "tokenizer.json"].map((f) => `/org/nested/resolve/main/${f}`),
    );
    const folder = join(modelCacheDir(store.path), "org", "nested");
    assert.ok((await Deno.stat(join(folder, "onnx", "model.onnx"))).isFile);
    assert.equal(await Deno.stat(join(folder, "model.onnx")).catch(() => null), null);

    assert.ok(maxDifference(got, await shipped.embedDocuments(TEXTS)) < 1e-5);
    const query = "when do we deploy?";
    assert.ok(
      maxDifference([await nested.embedQuery(query)], [await shipped.embedQuery(query)]) < 1e-5,
    );
  } finally {
    await nested.close();
    await shipped.close();
  }
});
