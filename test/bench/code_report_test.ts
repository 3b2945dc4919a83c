import assert from "node:assert/strict";
import { codeReport } from "../../bench/code_report.ts";
import type { RepoRun, System } from "../../bench/code_run.ts";
import { MINED_DEV } from "../../bench/code_sets.ts";
import type { Ranking } from "../../bench/code_scores.ts";

const hit: Ranking = { files: ["gold.x"], functions: ["gold.x::f"] };
const miss: Ranking = { files: ["other.x"], functions: [] };

/** A run of `repo` whose issues cairn's asks rank as `cairn` and the baselines as `bm25`. */
function run(repo: string, ids: string[], cairn: Ranking, bm25: Ranking): RepoRun {
  const systems = (): Record<System, Ranking> => ({
    hybrid: cairn,
    lexical: cairn,
    vector: cairn,
    "hybrid-language": cairn,
    bm25,
    grep: bm25,
  });
  return {
    repo,
    instances: ids.length,
    commits: ids.length,
    files: 10,
    chunks: 100,
    firstIndexSeconds: 1,
    firstChunkSeconds: 0.5,
    peakRssMiB: 100,
    noChangeSeconds: 0.1,
    moves: [],
    rankings: Object.fromEntries(ids.map((id) => [id, systems()])),
    truncatedQueries: 0,
  };
}

Deno.test("codeReport() breaks file accuracy down by language, by source and hybrid − BM25 by repository", () => {
  const instances = [
    { id: "g1", repo: "o/go", language: "go", base_commit: "c", query: "q", source: "fix-commit" },
    { id: "g2", repo: "o/go", language: "go", base_commit: "c", query: "q", source: "issue" },
    { id: "p1", repo: "o/py", language: "python", base_commit: "c", query: "q", source: "issue" },
  ];
  const gold = new Map([
    ["g1", { gold_files: ["gold.x"], gold_spans: {} }],
    ["g2", { gold_files: ["gold.x"], gold_spans: {} }],
    ["p1", { gold_files: ["gold.x"], gold_spans: { "gold.x": ["f"] } }],
  ]);
  const report = codeReport({
    set: MINED_DEV,
    runs: [run("o/go", ["g1", "g2"], hit, miss), run("o/py", ["p1"], miss, hit)],
    gold,
    instances,
    languages: ["go", "python"],
    only: [],
  });
  assert.match(report, /dev: 3 issues, 2 repositories/);
  assert.match(report, /every `\.py` `\.pyi` `\.go` file/);
  assert.match(
    report,
    /\| go \| 2 \| 1\.000 \| 1\.000 \| 1\.000 \| 0\.000 \| 0\.000 \| 0\.000 \| \+1\.000 \| – \|/,
  );
  assert.match(
    report,
    /\| python \| 1 \| 0\.000 \| 0\.000 \| 0\.000 \| 1\.000 \| 1\.000 \| 1\.000 \| −1\.000 \| 0\.000 \(1\) \|/,
  );
  assert.match(
    report,
    /\| fix-commit \| 1 \| 1\.000 \| 1\.000 \| 1\.000 \| 0\.000 \| 0\.000 \| 0\.000 \| \+1\.000 \| – \|/,
  );
  assert.match(
    report,
    /\| issue \| 2 \| 0\.500 \| 0\.500 \| 0\.500 \| 0\.500 \| 0\.500 \| 0\.500 \| \+0\.000 \| 0\.000 \(1\) \|/,
  );
  assert.match(report, /\| o\/go \| go \| 2 \| 1\.000 \| 0\.000 \| \+1\.000 \|/);
  assert.match(report, /\| o\/py \| python \| 1 \| 0\.000 \| 1\.000 \| −1\.000 \|/);
  // Overall, hybrid finds 2 of 3 and its one issue with spans misses.
  assert.match(
    report,
    /\| cairn hybrid \| 0\.667 \| 0\.667 \| 0\.667 \| 0\.667 \| 0\.000 \| 0\.000 \|/,
  );
});
