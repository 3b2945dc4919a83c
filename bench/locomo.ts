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

interface Question {
  id: string;
  project: string;
  query: string;
  category: number;
}

interface Scores {
  r1: number;
  r5: number;
  r10: number;
  h1: number;
  h10: number;
  ndcg10: number;
}

/**
 * LoCoMo (dev split): imports the conversations through the CLI, asks every
 * question in each mode with `recall --batch`, and scores against the gold
 * turns only after retrieval. Plain BM25 over the same turns runs in the same
 * run as the outside baseline.
 */
export async function benchLocomo(): Promise<void> {
  const store = await newStore(await Deno.makeTempDir({ prefix: "cairn-bench-locomo-" }));
  try {
    const questions = (await readJsonl<Question & { gold?: unknown }>(
      await benchFile("locomo-dev", "queries.jsonl"),
    ))
      .map(({ id, project, query, category }) => ({ id, project, query, category }));
    const started = performance.now();
    await cairn(["--store", store, "import", await benchFile("locomo-dev", "memories.jsonl")]);
    const importSeconds = (performance.now() - started) / 1000;

    const rankings: Record<string, Map<string, string[]>> = {};
    const latency: Record<string, number[]> = {};
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
    rankings.bm25 = await bm25Rankings(questions);

    // Only now read the answers.
    const gold = new Map(
      (await readJsonl<{ id: string; gold: string[] }>(
        await benchFile("locomo-dev", "queries.jsonl"),
      )).map((
        q,
      ) => [q.id, q.gold]),
    );
    const memoryCount = (await readJsonl(await benchFile("locomo-dev", "memories.jsonl"))).length;
    const body = report(questions, gold, rankings, latency, memoryCount, importSeconds);
    console.log(body);
    await writeSection("locomo", await runInfo("quality"), body);
  } finally {
    await Deno.remove(store, { recursive: true });
  }
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
  questions: Question[],
  gold: Map<string, string[]>,
  rankings: Record<string, Map<string, string[]>>,
  latency: Record<string, number[]>,
  memoryCount: number,
  importSeconds: number,
): string {
  const f = (x: number) => x.toFixed(3);
  const systems = [...MODES.map((m) => `cairn ${m}`), "BM25 baseline"];
  const keys = [...MODES, "bm25"];
  const overall = keys.map((key) =>
    average(questions.map((q) => score(rankings[key]!.get(q.id) ?? [], gold.get(q.id)!)))
  );
  const rows = overall.map((s, i) =>
    `| ${systems[i]} | ${f(s.r1)} | ${f(s.r5)} | ${f(s.r10)} | ${f(s.h1)} | ${f(s.h10)} | ${
      f(s.ndcg10)
    } |`
  );
  const byCategory = Object.entries(CATEGORIES).map(([category, name]) => {
    const subset = questions.filter((q) => q.category === Number(category));
    const cells = keys.map((key) => {
      const s = average(subset.map((q) => score(rankings[key]!.get(q.id) ?? [], gold.get(q.id)!)));
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
