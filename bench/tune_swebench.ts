/**
 * Tunes recall's fusion weights for code, and the rules that lower tests and
 * documentation, on the stores a code benchmark run
 * kept (CAIRN_BENCH_WORK=DIR CAIRN_BENCH_KEEP_STORES=1 with `deno task bench
 * code` or `mined`) for the repositories it finished, and says what the
 * tuning is worth on repositories it did not see. Every issue is asked
 * in-process at its base commit as a user asks (all code, no language
 * filter) with each setting of a grid, once; the per-issue scores
 * then give the shipped weights' figures, the in-sample best, and the
 * leave-one-repository-out figures (bench/cross_validate.ts). The gold is read
 * only for scoring. Rankings are saved as they come in DIR/tune-SET.rankings.jsonl,
 * so an interrupted run resumes; delete that file after changing recall.
 *
 * CAIRN_TUNE_GRID (a JSON array of weights and `lowerFactors`, each over the
 * shipped ones) replaces the default grid; the shipped setting is always in it.
 *
 * @example
 * ```sh
 * deno run -A bench/tune_swebench.ts DIR --set mined
 * CAIRN_TUNE_GRID='[{"vector":0.2},{"lowerFactors":{"test":1}}]' deno run -A bench/tune_swebench.ts DIR
 * ```
 * @module
 */
import { join } from "node:path";
import {
  CODE_WEIGHTS,
  DEFAULT_WEIGHTS,
  type Signal,
  type SignalWeights,
} from "../src/recall/fuse.ts";
import type { RepoRun } from "./code_run.ts";
import { type Ranking, scoreIssue } from "./code_scores.ts";
import { readGold, readInstances, workDirAndSet } from "./code_sets.ts";
import { type GridPoint, heldOutScores, leaveOneRepositoryOut } from "./cross_validate.ts";
import { gridRankings, type RankingSetting } from "./grid_rankings.ts";
import {
  LOWERED_FILE_PRIOR,
  LOWERED_KIND_NAMES,
  type LoweredKindName,
} from "../src/recall/path_priors.ts";
import { tuningReport } from "./tuning_report.ts";
import { runInfo, writeSection } from "./report.ts";

const { work, set } = workDirAndSet("tune_swebench.ts");

/** Every kind of file lowered by the shipped factor, as recall does. */
const ALL_LOWERED = Object.fromEntries(
  LOWERED_KIND_NAMES.map((kind) => [kind, LOWERED_FILE_PRIOR]),
) as Record<LoweredKindName, number>;
const SHIPPED: RankingSetting = {
  weights: { ...DEFAULT_WEIGHTS, ...CODE_WEIGHTS },
  lowerFactors: ALL_LOWERED,
};
const SIGNALS = Object.keys(SHIPPED.weights) as Signal[];
const grid = settingGrid();
const instances = await readInstances(set);
const cache = join(work, `tune-${set.suite}.rankings.jsonl`);
const rankings = await gridRankings(work, instances, grid, cache);
if (rankings.size === 0) {
  console.error(
    `no repository of ${set.data} finished with its stores kept in ${work}: run the benchmark ` +
      `with CAIRN_BENCH_WORK=${work} CAIRN_BENCH_KEEP_STORES=1 first`,
  );
  Deno.exit(2);
}

// Only now read the answers.
const gold = await readGold(set);
const ids = [...rankings.keys()].sort();
const repoOf = new Map(instances.map((i) => [i.id, i.repo]));
const repos = ids.map((id) => repoOf.get(id)!);
const points: GridPoint[] = grid.map((setting, g) => ({
  changes: changesFrom(setting),
  scores: ids.map((id) => scoreIssue(rankings.get(id)![g]!, gold.get(id)!)),
}));
const folds = leaveOneRepositoryOut(repos, points);
const filtered = await gridRankings(work, instances, [{ ...SHIPPED, filtered: true }], cache);
const bm25 = await runBaseline(work, ids, repos);
const body = tuningReport({
  set,
  grid: grid.map((setting) => describe(setting)),
  repos,
  points,
  folds,
  heldOut: heldOutScores(folds, points),
  filtered: ids.map((id) => scoreIssue(filtered.get(id)![0]!, gold.get(id)!)),
  bm25: bm25 && ids.map((id) => scoreIssue(bm25.get(id)!, gold.get(id)!)),
  shipped: describe(SHIPPED, () => true),
});
console.log(body);
const command = `deno run -A bench/tune_swebench.ts WORK --set ${set.suite}` +
  (Deno.env.get("CAIRN_TUNE_GRID") ? " (CAIRN_TUNE_GRID set)" : "");
await writeSection(`${set.section}-tuning`, { ...await runInfo(""), command }, body);

/** A grid point as CAIRN_TUNE_GRID gives it: what differs from the shipped setting. */
type SettingChange = Partial<SignalWeights> & {
  lowerFactors?: Partial<Record<LoweredKindName, number>>;
};

/**
 * CAIRN_TUNE_GRID's points or the default grid (fusion weights, the nearest
 * files' among them, each with every choice of {@linkcode loweringChoices}),
 * each over the shipped setting, shipped first. The graph weight is not in it: a code question alone
 * gets no vote from the walk (it comes from memories and turns only).
 */
function settingGrid(): RankingSetting[] {
  const given: SettingChange[] = JSON.parse(Deno.env.get("CAIRN_TUNE_GRID") ?? "[]");
  if (given.length === 0) {
    for (const vector of [0.1, 0.2, 0.4]) {
      for (const lexical of [0.1, 0.2, 0.4]) {
        for (const context of [0, 0.1, 0.2, 0.4]) {
          for (const mention of [0, 0.15, 0.3, 0.6]) {
            for (const file of [0, 0.1, 0.2]) {
              for (const lowerFactors of loweringChoices()) {
                given.push({ vector, lexical, context, mention, file, lowerFactors });
              }
            }
          }
        }
      }
    }
  }
  const all = [
    SHIPPED,
    ...given.map(({ lowerFactors, ...weights }) => ({
      weights: { ...SHIPPED.weights, ...weights },
      lowerFactors: { ...SHIPPED.lowerFactors, ...lowerFactors },
    })),
  ];
  const keys = all.map((setting) => JSON.stringify(setting));
  return all.filter((_, i) => keys.indexOf(keys[i]!) === i);
}

/**
 * Tooling files, examples and data files each lowered or not, by the shipped
 * {@linkcode LOWERED_FILE_PRIOR}. Tests, changelogs and documentation are
 * always lowered, and by that factor: every fold of a grid that varied them
 * too (and the factor: 0.1, 0.25, 0.5) kept them, and mostly the factor
 * (docs/decisions.md); a grid a sixth of that size ranks 280 issues in half
 * an hour on two processes.
 */
function loweringChoices(): Array<Record<LoweredKindName, number>> {
  const varied: LoweredKindName[] = ["tooling", "example", "data"];
  const choices: Array<Record<LoweredKindName, number>> = [];
  for (let mask = 0; mask < 2 ** varied.length; mask++) {
    const factors = { ...ALL_LOWERED };
    varied.forEach((kind, i) => {
      if (mask & (1 << i)) factors[kind] = 1;
    });
    choices.push(factors);
  }
  return choices;
}

/** How `setting` differs from the shipped one, a part each: weights, kinds not lowered, the factor. */
function differences(
  setting: RankingSetting,
  shown = (differs: boolean) => differs,
): string[] {
  const parts = SIGNALS
    .filter((s) => shown(setting.weights[s] !== SHIPPED.weights[s]))
    .map((s) => `${s} ${setting.weights[s]}`);
  const lowered = LOWERED_KIND_NAMES.filter((kind) => setting.lowerFactors[kind] !== 1);
  for (const kind of LOWERED_KIND_NAMES) {
    if (shown(lowered.includes(kind) !== (SHIPPED.lowerFactors[kind] !== 1))) {
      parts.push(`${kind} ${lowered.includes(kind) ? "lowered" : "not lowered"}`);
    }
  }
  const factors = new Set(lowered.map((kind) => setting.lowerFactors[kind]));
  if (factors.size === 1 && shown(!factors.has(LOWERED_FILE_PRIOR))) {
    parts.push(`lowered × ${[...factors][0]}`);
  } else if (factors.size > 1) {
    parts.push(...lowered.map((kind) => `${kind} × ${setting.lowerFactors[kind]}`));
  }
  return parts;
}

/** How many things `setting` changes: a weight, a kind lowered or not, the lowering factor. */
function changesFrom(setting: RankingSetting): number {
  return differences(setting).length;
}

/**
 * The settings `shown` picks, as the report says them: `vector 0.2, mention 0,
 * test not lowered, lowered × 0.1`; `shipped` when none differs.
 */
function describe(setting: RankingSetting, shown?: (differs: boolean) => boolean): string {
  const parts = differences(setting, shown);
  return parts.length ? parts.join(", ") : "shipped";
}

/** BM25 over whole files from the benchmark's saved runs, when every issue has it. */
async function runBaseline(
  work: string,
  ids: string[],
  repos: string[],
): Promise<Map<string, Ranking> | undefined> {
  const bm25 = new Map<string, Ranking>();
  for (const repo of new Set(repos)) {
    const run = JSON.parse(
      await Deno.readTextFile(join(work, `${repo.replace("/", "+")}.json`)),
    ) as RepoRun;
    for (const [id, systems] of Object.entries(run.rankings)) bm25.set(id, systems.bm25);
  }
  return ids.every((id) => bm25.get(id)) ? bm25 : undefined;
}
