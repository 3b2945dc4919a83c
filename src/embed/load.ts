/**
 * Finds and opens the embedding model shipped with cairn.
 * @module
 */
import { fileURLToPath } from "node:url";
import { OnnxEmbedder, type OnnxEmbedderOptions } from "./onnx_embedder.ts";

/** The name of the model folder cairn ships and uses by default. */
export const DEFAULT_MODEL = "all-minilm-l6-v2";

/**
 * The folder of a shipped model, found relative to this module so it resolves
 * the same in a checkout and inside a `deno compile`d binary (which includes `models/`).
 */
export function shippedModelDir(name = DEFAULT_MODEL): string {
  return fileURLToPath(new URL(`../../models/${name}/`, import.meta.url));
}

/**
 * Opens the default model (`models/all-minilm-l6-v2`), checking its files.
 * Throws an `EmbedderError` saying which file is missing or damaged.
 */
export function loadDefaultEmbedder(options: OnnxEmbedderOptions = {}): Promise<OnnxEmbedder> {
  return OnnxEmbedder.open(shippedModelDir(), options);
}
