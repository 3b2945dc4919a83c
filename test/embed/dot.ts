/** The dot product of two vectors of the same length (their cosine when both are unit vectors). */
export function dot(a: Float32Array, b: Float32Array): number {
  return a.reduce((sum, x, i) => sum + x * b[i]!, 0);
}
