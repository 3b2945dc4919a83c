/**
 * Which shipped model a store without a configured one uses: the one its
 * vectors were built with while cairn still ships it, so a newer default
 * never makes an existing store unusable until `cairn reembed`.
 * @module
 */
import { join } from "node:path";
import { builtWith } from "../../projections/vectors/vectors_projection.ts";
import { shippedModelDir, shippedModels } from "../embed/load.ts";
import { loadModelFolder } from "../embed/manifest.ts";
import { loadConfig } from "./config.ts";
import { storeLayout } from "./paths.ts";

/**
 * The folder of the shipped model for the store in `storeDir`: the model its
 * vectors were built with when shipped, else the default (a new store, or
 * one built with a model cairn no longer ships, which is refused as before).
 * `shipped` lists the shipped models by id.
 */
export async function shippedModelFor(
  storeDir: string,
  shipped: () => Promise<Map<string, string>> = shippedModels,
): Promise<string> {
  const built = await builtWith(join(storeLayout(storeDir).projections, "vectors"))
    .catch(() => undefined);
  if (!built) return shippedModelDir();
  // A models/ folder that cannot be listed (a binary's files, say) leaves the default.
  const models = await shipped().catch(() => new Map<string, string>());
  return models.get(built.id) ?? shippedModelDir();
}

/**
 * The shipped default's model id when the store in `storeDir` chooses no
 * model in its config.json yet runs another one (`running`, a shipped model
 * its vectors were built with before the default moved on): `cairn reembed`
 * would move it. Undefined otherwise.
 */
export async function newerDefault(storeDir: string, running: string): Promise<string | undefined> {
  const { embedder } = await loadConfig(storeDir);
  if (embedder.kind !== "onnx" || embedder.model_dir || embedder.model) return undefined;
  const latest = await loadModelFolder(shippedModelDir(), { verify: false }).catch(() => undefined);
  return latest && latest.id !== running ? latest.id : undefined;
}
