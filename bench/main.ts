/**
 * `deno task bench [suite]`: runs benchmark suites and records their figures in bench/RESULTS.md.
 * @module
 */
import { benchLog } from "./log.ts";

const suites: Record<string, () => Promise<void>> = { log: benchLog };

const [requested = "all"] = Deno.args;
const chosen = requested === "all" ? Object.keys(suites) : [requested];
for (const name of chosen) {
  const suite = suites[name];
  if (!suite) {
    console.error(`unknown suite "${name}"; choose one of: ${Object.keys(suites).join(", ")}, all`);
    Deno.exit(2);
  }
  await suite();
}
