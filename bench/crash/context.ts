/**
 * What every workload shares: the RNG, the temporary folder and the stores kept for inspection.
 * @module
 */
import { join } from "node:path";
import type { Rng } from "./rng.ts";

/** What every workload of a run shares. */
export interface Context {
  rng: Rng;
  /** The benchmark's temporary folder (removed at the end). */
  tmp: string;
  /** Where stores that failed a check are kept (made on first use, not removed). */
  keptDir?: string;
  kept: string[];
}

/** Copies (or moves) a store out of the temporary folder, for inspection; returns its path. */
export async function keepStore(
  ctx: Context,
  store: string,
  label: string,
  move: boolean,
): Promise<string> {
  ctx.keptDir ??= await Deno.makeTempDir({ prefix: "cairn-bench-crash-kept-" });
  const dest = join(ctx.keptDir, label.replace(/[^a-z0-9]+/gi, "-"));
  if (move) await Deno.rename(store, dest);
  else {
    const copy = await new Deno.Command("cp", { args: ["-a", store, dest] }).output();
    if (!copy.success) return `${store} (copy failed)`;
  }
  ctx.kept.push(dest);
  console.log(`[crash]   kept the store for inspection: ${dest}`);
  return dest;
}
