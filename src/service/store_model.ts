/**
 * Which shipped model a store without a configured one uses: the one its
 * vectors were built with while cairn still ships it, so a newer default
 * never makes an existing store unusable until `cairn reembed`.
 * @module
 */
import { join, resolve } from "node:path";
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

/** A newer shipped default than the model a store runs, and the command that moves it there. */
export interface NewerDefault {
  id: string;
  command: string;
}

/**
 * The shipped default, when the store in `storeDir` runs another model
 * (`running`) that is cairn's choice rather than the user's: none named in
 * its config.json (a shipped model its vectors were built with before the
 * default moved on), or a shipped folder named there by an earlier
 * `cairn reembed --model-dir`. Undefined otherwise.
 */
export async function newerDefault(
  storeDir: string,
  running: string,
): Promise<NewerDefault | undefined> {
  const { embedder } = await loadConfig(storeDir);
  if (embedder.kind !== "onnx" || embedder.model) return undefined;
  const pinned = embedder.model_dir;
  if (pinned && !(await isShippedFolder(pinned))) return undefined;
  const latest = await loadModelFolder(shippedModelDir(), { verify: false }).catch(() => undefined);
  if (!latest || latest.id === running) return undefined;
  const command = pinned
    ? `cairn reembed --model-dir ${resolve(shippedModelDir())}`
    : "cairn reembed";
  return { id: latest.id, command };
}

async function isShippedFolder(dir: string): Promise<boolean> {
  const shipped = await shippedModels().catch(() => new Map<string, string>());
  return [...shipped.values()].some((folder) => resolve(folder) === resolve(dir));
}
