import type { Projection } from "./projection.ts";

/** Builds every projection cairn keeps, each in its own folder under `dir`. */
export function defaultProjections(_dir: string): Promise<Projection[]> {
  return Promise.resolve([]);
}
