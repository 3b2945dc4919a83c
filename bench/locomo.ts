import { join } from "node:path";
import { Bm25, wordTokens } from "./bm25.ts";
import { cairn, newStore, readJsonl, recallBatch, writeJsonl } from "./cli.ts";
import { benchFile } from "./data.ts";
import { hitAt, mean, ndcgAt, recallAt } from "./metrics.ts";
import { median, percentile, runInfo, writeSection } from "./report.ts";

const CATEGORIES: Record<number, string> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
};
const MODES = ["hybrid", "lexical", "vector"] as const;
type Mode = typeof MODES[number];

/** One LoCoMo dev question, without its answer. */
export interface Question {
  id: string;
  project: string;
  query: string;
  category: number;
}

/** Recall, hits and nDCG of a ranking, or their means. */
export interface Scores {
  r1: number;
  r5: number;
  r10: number;
  h1: number;
  h10: number;
  ndcg10: number;
}

/** Every question of LoCoMo's dev split asked in each mode over one store. */
export interface LocomoRun {
  questions: Question[];
  /** Each mode's ranked source ids, by question id. */
  rankings: Record<Mode, Map<string, string[]>>;
  /** Each mode's recall times in ms. */
  latency: Record<Mode, number[]>;
  /** The import's wall time, embedding included. */
  importSeconds: number;
}

/**
 * LoCoMo (dev split): imports the conversations through the CLI, asks every
 * question in each mode with `recall --batch`, and scores against the gold
 * turns only after retrieval. Plain BM25 over the same turns runs in the same
 * run as the outside baseline.
 */
export async function benchLocomo(): Promise<void> {
  const run = await runLocomo();
  const rankings = { ...run.rankings, bm25: await bm25Rankings(run.questions) };
  // Only now read the answers.
  const gold = await locomoGold();
  const memoryCount = (await readJsonl(await benchFile("locomo-dev", "memories.jsonl"))).length;
  const body = report(run, gold, rankings, memoryCount);
  console.log(body);
  await writeSection("locomo", await runInfo("quality"), body);
}

/** Imports LoCoMo's dev conversations into a new store and asks every question in each mode. */
export async function runLocomo(): Promise<LocomoRun> {
  const store = await newStore(await Deno.makeTempDir({ prefix: "cairn-bench-locomo-" }));
  try {
    const questions = (await readJsonl<Question & { gold?: unknown }>(
      await benchFile("locomo-dev", "queries.jsonl"),
    ))
      .map(({ id, project, query, category }) => ({ id, project, query, category }));
    const started = performance.now();
    await cairn(["--store", store, "import", await benchFile("locomo-dev", "memories.jsonl")]);
    const importSeconds = (performance.now() - started) / 1000;

    const rankings = {} as LocomoRun["rankings"];
    const latency = {} as LocomoRun["latency"];
    for (const mode of MODES) {
      const batch = join(store, `batch-${mode}.jsonl`);
      await writeJsonl(
        batch,
        questions.map((q) => ({
          id: q.id,
          query: q.query,
          project: q.project,
          include: ["memories"],
          mode,
        })),
      );
      const lines = await recallBatch(store, batch);
      rankings[mode] = new Map(
        lines.map((line) => [line.id, line.results.map((r) => r.source_id ?? "")]),
      );
      latency[mode] = lines.map((line) => line.elapsed_ms);
    }
    return { questions, rankings, latency, importSeconds };
  } finally {
    await Deno.remove(store, { recursive: true });
  }
}

/** The gold turns of every LoCoMo dev question, by question id: read only to score. */
export async function locomoGold(): Promise<Map<string, string[]>> {
  const rows = await readJsonl<{ id: string; gold: string[] }>(
    await benchFile("locomo-dev", "queries.jsonl"),
  );
  return new Map(rows.map((q) => [q.id, q.gold]));
}

/** The mean scores of `rankings` over `questions`. */
export function locomoScores(
  questions: readonly Question[],
  rankings: ReadonlyMap<string, string[]>,
  gold: ReadonlyMap<string, string[]>,
): Scores {
  return average(questions.map((q) => score(rankings.get(q.id) ?? [], gold.get(q.id)!)));
}

async function bm25Rankings(questions: Question[]): Promise<Map<string, string[]>> {
  const memories = await readJsonl<{ id: string; project: string; content: string }>(
    await benchFile("locomo-dev", "memories.jsonl"),
  );
  const indexes = new Map<string, Bm25>();
  for (const memory of memories) {
    if (!indexes.has(memory.project)) indexes.set(memory.project, new Bm25(wordTokens));
    indexes.get(memory.project)!.add(memory.id, memory.content);
  }
  return new Map(questions.map((q) => [q.id, indexes.get(q.project)?.search(q.query, 10) ?? []]));
}

function score(results: string[], gold: string[]): Scores {
  return {
    r1: recallAt(results, gold, 1),
    r5: recallAt(results, gold, 5),
    r10: recallAt(results, gold, 10),
    h1: hitAt(results, gold, 1),
    h10: hitAt(results, gold, 10),
    ndcg10: ndcgAt(results, gold, 10),
  };
}

function average(all: Scores[]): Scores {
  const pick = (key: keyof Scores) => mean(all.map((s) => s[key]));
  return {
    r1: pick("r1"),
    r5: pick("r5"),
    r10: pick("r10"),
    h1: pick("h1"),
    h10: pick("h10"),
    ndcg10: pick("ndcg10"),
  };
}

function report(
  run: LocomoRun,
  gold: Map<string, string[]>,
  rankings: Record<string, Map<string, string[]>>,
  memoryCount: number,
): string {
  const { questions, latency, importSeconds } = run;
  const f = (x: number) => x.toFixed(3);
  const systems = [...MODES.map((m) => `cairn ${m}`), "BM25 baseline"];
  const keys = [...MODES, "bm25"];
  const overall = keys.map((key) => locomoScores(questions, rankings[key]!, gold));
  const rows = overall.map((s, i) =>
    `| ${systems[i]} | ${f(s.r1)} | ${f(s.r5)} | ${f(s.r10)} | ${f(s.h1)} | ${f(s.h10)} | ${
      f(s.ndcg10)
    } |`
  );
  const byCategory = Object.entries(CATEGORIES).map(([category, name]) => {
    const subset = questions.filter((q) => q.category === Number(category));
    const cells = keys.map((key) => {
      const s = locomoScores(subset, rankings[key]!, gold);
      return `${f(s.r10)} / ${f(s.ndcg10)}`;
    });
    return `| ${name} (${subset.length}) | ${cells.join(" | ")} |`;
  });
  const latencies = MODES.map((m) =>
    `${m} p50 ${median(latency[m]!).toFixed(1)} ms, p95 ${
      percentile(latency[m]!, 0.95).toFixed(1)
    } ms`
  );
  return `## LoCoMo (dev: ${questions.length} questions over ${memoryCount} turns)

| system | R@1 | R@5 | R@10 | Hit@1 | Hit@10 | nDCG@10 |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join("\n")}

R@10 / nDCG@10 by question category:

| category | ${systems.join(" | ")} |
| --- | ${systems.map(() => "---:").join(" | ")} |
${byCategory.join("\n")}

Import (embedding included): ${memoryCount} memories in ${importSeconds.toFixed(1)} s ` +
    `(${
      (memoryCount / importSeconds).toFixed(0)
    } memories/s). Recall latency per query (in-process, batch): ${latencies.join("; ")}.`;
}
