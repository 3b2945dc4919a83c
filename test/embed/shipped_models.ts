import { existsSync } from "node:fs";
import { join } from "node:path";
import { shippedModelDir } from "../../src/embed/load.ts";

/**
 * Names of the model folders in `models/` that have a manifest: the model
 * tests run against each, so a newly shipped model is tested without edits.
 */
export const SHIPPED_MODELS: string[] = [...Deno.readDirSync(join(shippedModelDir(), ".."))]
  .filter((entry) =>
    entry.isDirectory && existsSync(join(shippedModelDir(entry.name), "manifest.json"))
  )
  .map((entry) => entry.name)
  .sort();
