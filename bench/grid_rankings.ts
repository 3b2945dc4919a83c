/**
 * Each issue of a code benchmark run ranked by cairn, in-process, under
 * every setting of a grid (fusion weights and the factor that lowers tests
 * and changelogs): asked as a user asks (all code,
 * no language filter) over the store kept at the base commit. Each
 * ranking is appended to a cache file as it comes, so an interrupted run
 * resumes and a larger grid asks only its new points.
 * @module
 */
import { join } from "node:path";
import { MAX_QUERY_CHARS } from "../src/recall/recall.ts";
import type { Signal, SignalWeights } from "../src/recall/fuse.ts";
import { openCairn } from "../src/service/cairn.ts";
import { LIMIT } from "./code_run.ts";
import type { Ranking } from "./code_scores.ts";
import type { Instance } from "./code_sets.ts";

const SIGNALS: readonly Signal[] = ["vector", "lexical", "context", "graph", "mention"];

/** One point of a tuning grid: what recall is asked with besides the question. */
export interface RankingSetting {
  weights: SignalWeights;
  /** What files the query does not ask for are multiplied by (1: not lowered). */
  lowerFactor: number;
}

/**
 * Every issue of `instances` whose repository the benchmark finished in
 * `work` (with its stores kept), ranked under each setting of `grid` in
 * order; the rankings already in `cache` are not asked again.
 * A repository still being run shares its embedding cache with the stores
 * kept so far, so only finished ones count.
 */
export async function gridRankings(
  work: string,
  instances: readonly Instance[],
  grid: readonly RankingSetting[],
  cache: string,
): Promise<Map<string, Ranking[]>> {
  const saved = await readCache(cache);
  const rankings = new Map<string, Ranking[]>();
  for (const repo of [...new Set(instances.map((i) => i.repo))].sort()) {
    const base = repo.replace("/", "+");
    const stores = join(work, `${base}.stores`);
    if (!await exists(join(work, `${base}.json`)) || !await exists(stores)) continue;
    const ofRepo = instances.filter((i) => i.repo === repo);
    for (const commit of new Set(ofRepo.map((i) => i.base_commit))) {
      const here = ofRepo.filter((i) => i.base_commit === commit);
      const missing = here.flatMap((instance) => grid.map((setting) => ({ instance, setting })))
        .filter(({ instance, setting }) => !saved.has(cacheKey(instance.id, setting)));
      if (missing.length) await rankAt(join(stores, commit), repo, missing, saved, cache);
      for (const i of here) {
        rankings.set(i.id, grid.map((setting) => saved.get(cacheKey(i.id, setting))!));
      }
      console.error(`${repo} ${commit.slice(0, 8)}: ${here.length} issues, ${missing.length} asks`);
    }
  }
  return rankings;
}

async function rankAt(
  store: string,
  repo: string,
  asks: Array<{ instance: Instance; setting: RankingSetting }>,
  saved: Map<string, Ranking>,
  cache: string,
): Promise<void> {
  const app = await openCairn(store);
  try {
    for (const { instance, setting } of asks) {
      const answer = await app.recall.run({
        query: instance.query.slice(0, MAX_QUERY_CHARS),
        project: repo.split("/")[1]!,
        sources: ["code"],
        limit: LIMIT,
        mode: "hybrid",
        ...setting,
      });
      const code = answer.items.flatMap((item) => item.type === "code" ? [item.code] : []);
      const ranking = {
        files: [...new Set(code.map((c) => c.path))],
        functions: [...new Set(code.map((c) => `${c.path}::${c.name}`))],
      };
      saved.set(cacheKey(instance.id, setting), ranking);
      const line = { id: instance.id, ...setting, ...ranking };
      await Deno.writeTextFile(cache, JSON.stringify(line) + "\n", { append: true });
    }
  } finally {
    await app.close();
  }
}

function cacheKey(id: string, { weights, lowerFactor }: RankingSetting): string {
  return `${id}\t${SIGNALS.map((signal) => weights[signal]).join(",")}\t${lowerFactor}`;
}

async function readCache(file: string): Promise<Map<string, Ranking>> {
  const saved = new Map<string, Ranking>();
  const text = await Deno.readTextFile(file).catch((error) => {
    if (error instanceof Deno.errors.NotFound) return "";
    throw error;
  });
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    // A line cut short by an interrupted run is asked again.
    try {
      const { id, weights, lowerFactor, files, functions } = JSON.parse(line);
      saved.set(cacheKey(id, { weights, lowerFactor }), { files, functions });
    } catch {
      continue;
    }
  }
  return saved;
}

function exists(path: string): Promise<boolean> {
  return Deno.stat(path).then(() => true, () => false);
}
