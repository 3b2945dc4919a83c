/**
 * Gives the stores a code benchmark run kept (CAIRN_BENCH_WORK=DIR
 * CAIRN_BENCH_KEEP_STORES=1) the history `cairn index` reads from a
 * repository: the benchmark's trees are written from bare mirrors and hold no
 * `.git`, so each store at a base commit is told which of its files changed
 * together in the commits up to that one (read from the mirror, never after
 * it), as `index` tells a store whose tree is a checkout. Run again, it tells
 * them again (the last history read stands).
 *
 * @example
 * ```sh
 * deno run -A bench/kept_history.ts DIR --set mined
 * ```
 * @module
 */
import { join } from "node:path";
import { fileKey } from "../projections/graph/code_graph.ts";
import { readCoChanges } from "../src/ingest/code/history.ts";
import { openCairn } from "../src/service/cairn.ts";
import { pairsUp } from "../src/service/code_index.ts";
import { readInstances, workDirAndSet } from "./code_sets.ts";
import { mirrorOf } from "./data.ts";

const { work, set } = workDirAndSet("kept_history.ts");

const instances = await readInstances(set);
for (const repo of [...new Set(instances.map((i) => i.repo))].sort()) {
  const stores = join(work, `${repo.replace("/", "+")}.stores`);
  const commits = await Array.fromAsync(Deno.readDir(stores)).catch(() => []);
  if (commits.length === 0) continue;
  const gitDir = await mirrorOf(repo);
  const project = repo.split("/")[1]!;
  for (const { name: commit } of commits) {
    const cairn = await openCairn(join(stores, commit));
    try {
      if (!(await cairn.code.projects()).some((p) => p.name === project)) continue;
      const { codeFiles } = cairn.recall.deps;
      const indexed = (path: string) =>
        codeFiles!.chunksOf(fileKey(project, path)).length > 0 && pairsUp(path);
      const history = await readCoChanges(gitDir, commit, indexed);
      if (!history) throw new Error(`git could not read ${repo}'s history at ${commit}`);
      await cairn.store.append([
        { type: "project.history_read", v: 1, data: { project, ...history } },
      ]);
      console.error(`${repo} ${commit.slice(0, 8)}: ${history.pairs.length} pairs`);
    } finally {
      await cairn.close();
    }
  }
}
