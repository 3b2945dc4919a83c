/**
 * `deno task bench variants`: the ranking each embedding variant gives on the
 * dev sets, beside the reference fp32 model's in the same run. Every variant
 * (see bench/model_folders.ts) runs LoCoMo's dev split and the fixed 42-issue
 * subset of SWE-bench Lite's dev split through the CLI, its stores started
 * with a config.json naming its model folder; LoCoMo's import is timed from
 * an empty user cache. With CAIRN_BENCH_WORK set, each variant's code runs and
 * user cache are kept in `WORK/<model id>/` and a later run reuses them (the
 * code suite's resumable work folder), so a variant costs its hour once.
 * @module
 */
import { join } from "node:path";
import { withEnv } from "./cli.ts";
import type { System } from "./code_run.ts";
import { summarize, type Summary } from "./code_scores.ts";
import { SWEBENCH_LITE_DEV_SUBSET } from "./code_sets.ts";
import { locomoGold, locomoScores, runLocomo } from "./locomo.ts";
import { benchModelFolders, referenceModelDir, variantConfig } from "./model_folders.ts";
import { runInfo, writeSection } from "./report.ts";
import { runCodeSet } from "./swebench.ts";
import { type CodeRunResults, scoresOfRuns } from "./code_report.ts";
import { type VariantQuality, variantsReport } from "./variants_report.ts";

/** Measures every variant's ranking and writes the `variants` section of bench/RESULTS.md. */
export async function benchVariants(): Promise<void> {
  const kept = Deno.env.get("CAIRN_BENCH_WORK");
  const root = kept ?? await Deno.makeTempDir({ prefix: "cairn-bench-variants-" });
  try {
    const folders = await benchModelFolders();
    const qualities: VariantQuality[] = [];
    for (const dir of folders) qualities.push(await variantQuality(root, dir));
    const body = variantsReport(qualities, qualities[folders.indexOf(referenceModelDir())]!);
    console.log(body);
    await writeSection("variants", await runInfo("variants"), body);
  } finally {
    if (!kept) await Deno.remove(root, { recursive: true });
  }
}

/** Runs both dev sets with every store on the model in `dir`. */
async function variantQuality(root: string, dir: string): Promise<VariantQuality> {
  const { id, folder, config } = await variantConfig(root, dir);
  console.error(`bench variants: ${id} (${dir})`);
  const empty = await Deno.makeTempDir({ prefix: "cairn-bench-variants-cache-" });
  const env = {
    CAIRN_BENCH_CONFIG: config,
    CAIRN_BENCH_WORK: join(folder, "code"),
    CAIRN_CACHE_DIR: join(folder, "cache"),
  };
  return await withEnv(env, async () => {
    try {
      // LoCoMo's import is timed with every vector computed: a new, empty user cache.
      const locomo = await withEnv({ CAIRN_CACHE_DIR: empty }, runLocomo);
      const code = await runCodeSet(SWEBENCH_LITE_DEV_SUBSET);
      // Only now read the answers.
      const gold = await locomoGold();
      const of = (mode: "hybrid" | "vector") =>
        locomoScores(locomo.questions, locomo.rankings[mode], gold);
      return {
        id,
        locomo: { hybrid: of("hybrid"), vector: of("vector"), importSeconds: locomo.importSeconds },
        code: { hybrid: codeSummary(code, "hybrid"), vector: codeSummary(code, "vector") },
      };
    } finally {
      await Deno.remove(empty, { recursive: true });
    }
  });
}

/** The mean scores of `system` over every issue a code run ranked. */
function codeSummary(results: CodeRunResults, system: System): Summary {
  const ids = results.runs.flatMap((run) => Object.keys(run.rankings));
  return summarize(scoresOfRuns(results.runs, results.gold)(system, ids));
}
