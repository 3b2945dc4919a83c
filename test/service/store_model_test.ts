import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { shippedModelDir, shippedModels } from "../../src/embed/load.ts";
import { loadModelFolder } from "../../src/embed/manifest.ts";
import { newerDefault, shippedModelFor } from "../../src/service/store_model.ts";
import { tempDir } from "../helpers.ts";
import { SHIPPED_MODELS } from "../embed/shipped_models.ts";

const shipped = () => Promise.resolve(new Map([["older-model", "/models/older-model"]]));

async function builtWith(store: string, id: string): Promise<void> {
  await Deno.mkdir(join(store, "projections", "vectors"), { recursive: true });
  await Deno.writeTextFile(
    join(store, "projections", "vectors", "model.json"),
    JSON.stringify({ id, dims: 384 }),
  );
}

Deno.test("shippedModelFor() keeps a store on the shipped model its vectors were built with", async () => {
  await using dir = await tempDir();
  await builtWith(dir.path, "older-model");
  assert.equal(await shippedModelFor(dir.path, shipped), "/models/older-model");
});

Deno.test("shippedModelFor() gives a new store, or one built with a model no longer shipped, the default", async () => {
  await using dir = await tempDir();
  assert.equal(await shippedModelFor(join(dir.path, "new"), shipped), shippedModelDir());
  await builtWith(dir.path, "gone-model");
  assert.equal(await shippedModelFor(dir.path, shipped), shippedModelDir());
});

Deno.test("shippedModels() finds the default model among the shipped folders", async () => {
  const models = await shippedModels();
  assert.ok([...models.values()].includes(shippedModelDir()), [...models.keys()].join(", "));
});

Deno.test("newerDefault() names the shipped default to a store that chose no model and runs another", async () => {
  await using dir = await tempDir();
  const { id } = await loadModelFolder(shippedModelDir(), { verify: false });
  assert.deepEqual(await newerDefault(dir.path, "older-model"), { id, command: "cairn reembed" });
  assert.equal(await newerDefault(dir.path, id), undefined);
});

Deno.test("newerDefault() names it to a store pinned to an older shipped folder by an earlier reembed, not to one the user chose", async () => {
  await using dir = await tempDir();
  const config = (modelDir: string) =>
    Deno.writeTextFile(
      join(dir.path, "config.json"),
      JSON.stringify({ embedder: { kind: "onnx", model_dir: modelDir } }),
    );
  const older = SHIPPED_MODELS.find((name) => shippedModelDir(name) !== shippedModelDir());
  assert.ok(older, "models/ ships only the default");
  const { id } = await loadModelFolder(shippedModelDir(), { verify: false });
  await config(shippedModelDir(older));
  assert.deepEqual(await newerDefault(dir.path, "older-model"), {
    id,
    command: `cairn reembed --model-dir ${resolve(shippedModelDir())}`,
  });
  await config("/models/mine");
  assert.equal(
    await newerDefault(dir.path, "older-model"),
    undefined,
    "config.json chose the model",
  );
});
