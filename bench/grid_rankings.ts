/**
 * Each issue of a code benchmark run ranked by cairn, in-process, under
 * every setting of a grid (fusion weights, and how much tests, changelogs,
 * documentation, tooling files, examples and data files are lowered): asked
 * as a user asks (all code, no language filter) over the store kept at the
 * issue's base commit. Each ranking is appended to a cache file as it comes,
 * so an interrupted run resumes and a larger grid asks only its new points.
 *
 * An issue's retrievals are made once and reused by every setting, as far as
 * the setting cannot change them: only the graph walk, seeded by a fusion,
 * depends on the weights; lowering files comes after every retrieval.
 * @module
 */
import { join } from "node:path";
import { MAX_QUERY_CHARS, recall, type RecallDeps, retrieversOf } from "../src/recall/recall.ts";
import type { Signal, SignalWeights } from "../src/recall/fuse.ts";
import { LOWERED_KIND_NAMES, type LoweredKindName } from "../src/recall/path_priors.ts";
import type { Candidates, Retriever } from "../src/recall/retriever.ts";
import { openCairn } from "../src/service/cairn.ts";
import { fileLines } from "../events/file_lines.ts";
import { LIMIT } from "./code_run.ts";
import type { Ranking } from "./code_scores.ts";
import type { Instance } from "./code_sets.ts";

const SIGNALS: readonly Signal[] = ["vector", "lexical", "context", "graph", "mention", "file"];
/** The deepest place any score reads (Acc@10): a saved ranking keeps no more. */
const SAVED_PLACES = 10;

/** One point of a tuning grid: what recall is asked with besides the question. */
export interface RankingSetting {
  weights: SignalWeights;
  /** What each kind of file the query does not ask for is multiplied by (1: not lowered). */
  lowerFactors: Record<LoweredKindName, number>;
  /** Only code in the language (`--language python`), as a user who says so asks. */
  filtered?: boolean;
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
    // A store kept by an older cairn rebuilds its vectors on open: rank once they are in.
    await app.store.runner.settled();
    for (const instance of new Set(asks.map((ask) => ask.instance))) {
      const deps = reusingQueryVectors(app.recall.deps);
      const retrievers = retrieversOf(deps).map(reusingRetrievals);
      for (const { setting } of asks.filter((ask) => ask.instance === instance)) {
        const { weights, lowerFactors, filtered } = setting;
        const { hits } = await recall(deps, {
          query: instance.query.slice(0, MAX_QUERY_CHARS),
          project: repo.split("/")[1]!,
          sources: ["code"],
          limit: LIMIT,
          mode: "hybrid",
          weights,
          lowerFactors,
          ...(filtered ? { language: instance.language } : {}),
        }, retrievers);
        const code = hits.map((hit) => ({
          path: deps.codePath!(hit.id)!,
          name: deps.codeName!(hit.id),
        }));
        const ranking = {
          files: [...new Set(code.map((c) => c.path))].slice(0, SAVED_PLACES),
          functions: [...new Set(code.map((c) => `${c.path}::${c.name}`))].slice(0, SAVED_PLACES),
        };
        saved.set(cacheKey(instance.id, setting), ranking);
        const line = { id: instance.id, ...setting, ...ranking };
        await Deno.writeTextFile(cache, JSON.stringify(line) + "\n", { append: true });
      }
    }
  } finally {
    await app.close();
  }
}

/** `deps` with each text embedded once. */
function reusingQueryVectors(deps: RecallDeps): RecallDeps {
  const { embedQuery } = deps;
  if (!embedQuery) return deps;
  const vectors = new Map<string, Promise<Float32Array>>();
  return {
    ...deps,
    embedQuery: (text) => {
      if (!vectors.has(text)) vectors.set(text, embedQuery(text));
      return vectors.get(text)!;
    },
  };
}

/**
 * `retriever` answering each question once per language filter; the graph
 * walk once per weights too (they seed it).
 */
function reusingRetrievals(retriever: Retriever): Retriever {
  const found = new Map<string, Promise<Candidates>>();
  return {
    signal: retriever.signal,
    reads: retriever.reads,
    retrieve(ask, earlier) {
      const { query, language, weights } = ask.request;
      const asked = `${query}\0${language ?? ""}`;
      const key = retriever.signal === "graph" ? `${asked}\0${JSON.stringify(weights)}` : asked;
      if (!found.has(key)) found.set(key, retriever.retrieve(ask, earlier));
      return found.get(key)!;
    },
  };
}

function cacheKey(id: string, { weights, lowerFactors, filtered }: RankingSetting): string {
  return `${id}\t${SIGNALS.map((signal) => weights[signal]).join(",")}\t` +
    LOWERED_KIND_NAMES.map((kind) => lowerFactors[kind]).join(",") + (filtered ? "\tlanguage" : "");
}

async function readCache(file: string): Promise<Map<string, Ranking>> {
  const saved = new Map<string, Ranking>();
  if (!await exists(file)) return saved;
  // Each path is kept once: a grid repeats the same few thousand over a million rankings.
  const paths = new Map<string, string>();
  const once = (path: string) => paths.get(path) ?? (paths.set(path, path), path);
  // Read line by line: a whole grid over hundreds of issues outgrows one string.
  for await (const line of fileLines(file)) {
    if (!line.complete || !line.text.trim()) continue;
    // A line cut short by an interrupted run is asked again.
    try {
      const { id, weights, lowerFactors, filtered, files, functions } = JSON.parse(line.text);
      saved.set(cacheKey(id, { weights, lowerFactors, filtered }), {
        files: files.map(once),
        functions: functions.map(once),
      });
    } catch {
      continue;
    }
  }
  return saved;
}

function exists(path: string): Promise<boolean> {
  return Deno.stat(path).then(() => true, () => false);
}
