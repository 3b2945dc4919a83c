/**
 * Pooling turns a model's per-token hidden states into one vector per text:
 * the [CLS] token's state (BGE) or the mean over real tokens (MiniLM).
 * @module
 */
import { normalize } from "./embedder.ts";

/** How a model's token states become one vector. */
export type Pooling = "cls" | "mean";

/**
 * Pools `hidden` (`[batch, seqLen, dims]`, row-major) into `batch` unit
 * vectors; `mask` (`[batch, seqLen]`, 1 for real tokens) limits the mean.
 */
export function poolHidden(
  hidden: Float32Array,
  mask: ArrayLike<number>,
  batch: number,
  seqLen: number,
  dims: number,
  pooling: Pooling,
): Float32Array[] {
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const base = b * seqLen * dims;
    if (pooling === "cls") {
      out.push(normalize(hidden.slice(base, base + dims)));
      continue;
    }
    const sum = new Float32Array(dims);
    let count = 0;
    for (let t = 0; t < seqLen; t++) {
      if (!mask[b * seqLen + t]) continue;
      count++;
      const row = base + t * dims;
      for (let d = 0; d < dims; d++) sum[d] = sum[d]! + hidden[row + d]!;
    }
    if (count > 0) { for (let d = 0; d < dims; d++) sum[d] = sum[d]! / count; }
    out.push(normalize(sum));
  }
  return out;
}
