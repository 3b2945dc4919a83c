/**
 * The embedding models the benchmarks weigh against each other: every model
 * shipped with cairn, and model folders being considered (a quantized export,
 * say) named in CAIRN_BENCH_MODELS.
 * @module
 */
import { join } from "node:path";
import { shippedModelDir, shippedModels } from "../src/embed/load.ts";
import { loadModelFolder } from "../src/embed/manifest.ts";

/** The shipped fp32 model: the reference every variant is judged against. */
export const REFERENCE_MODEL = "bge-small-en-v1.5";

/** The reference model's folder. */
export function referenceModelDir(): string {
  return shippedModelDir(REFERENCE_MODEL);
}

/**
 * Every shipped model's folder (sorted by model id), then each folder in
 * CAIRN_BENCH_MODELS (`:`-separated), in the order given.
 */
export async function benchModelFolders(): Promise<string[]> {
  const extra = (Deno.env.get("CAIRN_BENCH_MODELS") ?? "").split(":").filter(Boolean);
  const shipped = [...(await shippedModels())].sort(([a], [b]) => a.localeCompare(b));
  return [...shipped.map(([, folder]) => folder), ...extra];
}

/**
 * Writes into `work/<model id>/` a config.json that puts a store on the model
 * in `dir`, for CAIRN_BENCH_CONFIG; returns the model id and the file.
 */
export async function variantConfig(
  work: string,
  dir: string,
): Promise<{ id: string; folder: string; config: string }> {
  const { id } = await loadModelFolder(dir, { verify: false });
  const folder = join(work, id);
  await Deno.mkdir(folder, { recursive: true });
  const config = join(folder, "config.json");
  const embedder = { kind: "onnx", model_dir: dir };
  await Deno.writeTextFile(config, JSON.stringify({ embedder }, null, 2));
  return { id, folder, config };
}
