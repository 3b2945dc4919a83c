/**
 * A store's vectors opened only to be counted: no model is needed, nor loaded.
 * @module
 */
import type { BlobStore } from "../../events/blobs.ts";
import { VectorsProjection } from "../../projections/vectors/vectors_projection.ts";
import { EmbedderError } from "../embed/embedder.ts";
import { UnavailableEmbedder } from "../embed/unavailable_embedder.ts";

/** Opens the vectors in `dir` without a model: they can be counted, not searched or added to. */
export async function vectorsToCount(dir: string, blobs: BlobStore): Promise<VectorsProjection> {
  const noModel = new UnavailableEmbedder(new EmbedderError("model_missing", "only counting"));
  return await VectorsProjection.open(dir, noModel, blobs);
}
