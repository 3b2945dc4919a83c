/**
 * Vectors shared beyond one store: a team's, computed once by whichever
 * member (or CI box) embedded a text first. A store's embedding cache asks
 * them for the texts it lacks before the model computes anything, and hands
 * them what the model computed. Registered per store folder by the layer that
 * knows the team (`src/team`), so the embedders built for that store find them.
 * @module
 */
import { resolve } from "node:path";

/** Vectors by model id and sha256 of the text; never throws, a miss is undefined. */
export interface SharedVectors {
  getMany(model: string, keys: readonly string[]): Promise<Array<Float32Array | undefined>>;
  putMany(model: string, entries: ReadonlyArray<readonly [string, Float32Array]>): Promise<void>;
}

const registered = new Map<string, SharedVectors>();

/** Makes `vectors` the shared vectors of the store in `storeDir` (undefined: none again). */
export function shareVectors(storeDir: string, vectors: SharedVectors | undefined): void {
  if (vectors) registered.set(resolve(storeDir), vectors);
  else registered.delete(resolve(storeDir));
}

/** The shared vectors of the store in `storeDir`, if any. */
export function sharedVectorsOf(storeDir: string): SharedVectors | undefined {
  return registered.get(resolve(storeDir));
}
