/**
 * Tunes recall's fusion weights on locomo-dev: imports the turns through the
 * CLI, collects each question's vector, lexical and context lists once, then
 * scores every weight combination of a grid (R@10 and nDCG@10, the gold answers
 * read only for scoring). Run: `deno run -A bench/tune_locomo.ts`.
 * @module
 */
import { reciprocalRankFusion, type SignalWeights } from "../src/recall/fuse.ts";
import { openCairn } from "../src/service/cairn.ts";
import { cairn, readJsonl } from "./cli.ts";
import { benchFile } from "./data.ts";
import { mean, ndcgAt, recallAt } from "./metrics.ts";

const LIMIT = 50;

const store = await Deno.makeTempDir({ prefix: "cairn-tune-" });
try {
  await cairn(["--store", store, "import", await benchFile("locomo-dev", "memories.jsonl")]);
  const questions = await readJsonl<{ id: string; project: string; query: string }>(
    await benchFile("locomo-dev", "queries.jsonl"),
  );
  const app = await openCairn(store);
  const lists: Array<{ id: string; vector: string[]; lexical: string[]; context: string[] }> = [];
  const external = new Map<string, string>();
  try {
    for (const q of questions) {
      const vector = app.vectors.search("memory", await app.embedder.embedQuery(q.query), {
        project: q.project,
        limit: LIMIT,
      })
        .map((hit) => hit.id.slice("memory:".length));
      const lexical = app.text.search(q.query, {
        sources: ["memory"],
        project: q.project,
        limit: LIMIT,
      }).map((h) => h.id);
      const context = app.text.searchContext(q.query, {
        source: "memory",
        project: q.project,
        limit: LIMIT,
      }).map((h) => h.ids[0]!);
      lists.push({ id: q.id, vector, lexical, context });
    }
    for (
      const memory of await app.memories.getMany(
        lists.flatMap((l) => [...l.vector, ...l.lexical, ...l.context]),
      )
    ) {
      external.set(memory.id, memory.external_id ?? "");
    }
  } finally {
    await app.close();
  }
  const gold = new Map(
    (await readJsonl<{ id: string; gold: string[] }>(
      await benchFile("locomo-dev", "queries.jsonl"),
    )).map((
      q,
    ) => [q.id, q.gold]),
  );
  const grid = [0, 0.1, 0.2, 0.3, 0.5, 0.7, 1];
  const results: Array<{ weights: SignalWeights; k: number; r10: number; ndcg: number }> = [];
  for (const k of [5, 10, 20, 30, 60]) {
    for (const vector of grid) {
      for (const lexical of grid) {
        for (const context of grid) {
          if (vector + lexical + context === 0) continue;
          const weights = { vector, lexical, context, graph: 0, mention: 0, file: 0 };
          const r10: number[] = [];
          const ndcg: number[] = [];
          for (const entry of lists) {
            const ranked = reciprocalRankFusion(
              {
                vector: entry.vector,
                lexical: entry.lexical,
                context: entry.context,
              },
              weights,
              k,
            ).slice(0, 10).map((f) => external.get(f.id) ?? "");
            r10.push(recallAt(ranked, gold.get(entry.id)!, 10));
            ndcg.push(ndcgAt(ranked, gold.get(entry.id)!, 10));
          }
          results.push({ weights, k, r10: mean(r10), ndcg: mean(ndcg) });
        }
      }
    }
  }
  results.sort((a, b) => b.r10 + b.ndcg - (a.r10 + a.ndcg));
  for (const result of results.slice(0, 15)) {
    const { vector, lexical, context } = result.weights;
    console.log(
      `k ${result.k} vector ${vector} lexical ${lexical} context ${context}: R@10 ${
        result.r10.toFixed(3)
      } nDCG@10 ${result.ndcg.toFixed(3)}`,
    );
  }
} finally {
  await Deno.remove(store, { recursive: true });
}
