import { Store, type StoreOptions } from "./store.ts";
import { defaultProjections } from "../../projections/registry.ts";

/** Opens the store in `dir` with cairn's projections. */
export function openStore(dir: string, options: StoreOptions = {}): Promise<Store> {
  return Store.open(dir, { projections: defaultProjections, ...options });
}
