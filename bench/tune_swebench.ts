/**
 * Tunes recall's weights for code on the stores a `deno task bench code` run
 * kept (CAIRN_BENCH_WORK=DIR CAIRN_BENCH_KEEP_STORES=1) for the repositories it
 * finished: every issue is asked in-process at its base commit with each
 * weight combination of a small grid, then scored (file Acc@1/5/10, function Acc@10; the gold read only for
 * scoring). Run: `deno run -A bench/tune_swebench.ts DIR`; CAIRN_TUNE_GRID
 * (a JSON array of weights) replaces the default grid.
 * @module
 */
import { join } from "node:path";
import { MAX_QUERY_CHARS } from "../src/recall/recall.ts";
import { CODE_WEIGHTS, DEFAULT_WEIGHTS, type SignalWeights } from "../src/recall/fuse.ts";
import { openCairn } from "../src/service/cairn.ts";
import { readJsonl } from "./cli.ts";
import { benchFile } from "./data.ts";
import { mean } from "./metrics.ts";

const [work] = Deno.args;
if (!work) throw new Error("usage: deno run -A bench/tune_swebench.ts WORK_DIR");

interface Instance {
  id: string;
  repo: string;
  base_commit: string;
  query: string;
}

const grid: SignalWeights[] = JSON.parse(Deno.env.get("CAIRN_TUNE_GRID") ?? "[]");
if (grid.length === 0) {
  for (const vector of [0.1, 0.2, 0.4]) {
    for (const lexical of [0.1, 0.2, 0.4]) {
      for (const context of [0, 0.2, 0.4]) {
        for (const graph of [0, 0.2]) {
          for (const mention of [0, 0.15, 0.3, 0.6]) {
            grid.push({ vector, lexical, context, graph, mention });
          }
        }
      }
    }
  }
}

const instances = await readJsonl<Instance>(
  await benchFile("swebench-lite-dev", "instances.jsonl"),
);
const exists = (path: string) => Deno.stat(path).then(() => true, () => false);
const rankings = new Map<string, Array<{ files: string[]; functions: string[] }>>();
for await (const entry of Deno.readDir(work)) {
  if (!entry.name.endsWith(".stores")) continue;
  const base = entry.name.slice(0, -".stores".length);
  // A repository still being run shares its embedding cache with the stores kept so far.
  if (!await exists(join(work, `${base}.json`))) continue;
  const repo = base.replace("+", "/");
  for await (const commit of Deno.readDir(join(work, entry.name))) {
    const here = instances.filter((i) => i.repo === repo && i.base_commit === commit.name);
    const app = await openCairn(join(work, entry.name, commit.name));
    try {
      for (const instance of here) {
        const perWeights = [];
        for (const weights of grid) {
          const answer = await app.recall.run({
            query: instance.query.slice(0, MAX_QUERY_CHARS),
            project: repo.split("/")[1]!,
            sources: ["code"],
            language: "python",
            limit: 50,
            mode: "hybrid",
            weights,
          });
          const code = answer.items.flatMap((item) => item.type === "code" ? [item.code] : []);
          perWeights.push({
            files: [...new Set(code.map((c) => c.path))],
            functions: [...new Set(code.map((c) => `${c.path}::${c.name}`))],
          });
        }
        rankings.set(instance.id, perWeights);
      }
    } finally {
      await app.close();
    }
    console.error(`${repo} ${commit.name.slice(0, 8)}: ${here.length} issues`);
  }
}

// Only now read the answers.
const gold = new Map(
  (await readJsonl<{ id: string; gold_files: string[]; gold_spans: Record<string, string[]> }>(
    await benchFile("swebench-lite-dev", "instances.jsonl"),
  )).map((g) => [g.id, g]),
);
const allAt = (ranked: string[], wanted: string[], k: number) => {
  const top = new Set(ranked.slice(0, k));
  return wanted.every((item) => top.has(item)) ? 1 : 0;
};
const ids = [...rankings.keys()];
const rows = grid.map((weights, g) => {
  const at = (k: number) =>
    mean(ids.map((id) => allAt(rankings.get(id)![g]!.files, gold.get(id)!.gold_files, k)));
  const spans = ids.filter((id) => Object.keys(gold.get(id)!.gold_spans).length > 0);
  const fn10 = mean(spans.map((id) => {
    const wanted = Object.entries(gold.get(id)!.gold_spans).flatMap(([file, names]) =>
      names.map((name) => `${file}::${name}`)
    );
    return allAt(rankings.get(id)![g]!.functions, wanted, 10);
  }));
  return { weights, a1: at(1), a5: at(5), a10: at(10), fn10 };
});
rows.sort((a, b) => b.a5 + b.fn10 - (a.a5 + a.fn10));
console.log(`${ids.length} issues, best first; * marks the weights code has now`);
const current = JSON.stringify({ ...DEFAULT_WEIGHTS, ...CODE_WEIGHTS });
for (const row of rows) {
  const weights = JSON.stringify(row.weights);
  console.log(
    `${weights === current ? "*" : " "} ${weights} file@1 ${row.a1.toFixed(3)} file@5 ${
      row.a5.toFixed(3)
    } @10 ${row.a10.toFixed(3)} ` +
      `fn@10 ${row.fn10.toFixed(3)}`,
  );
}
