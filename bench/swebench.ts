/**
 * The code benchmark on a dev set of real issues (SWE-bench Lite's dev split,
 * or the mined set of issue #28; see bench/code_sets.ts). Each repository is
 * written at its instances' base commits into a temporary tree, indexed once
 * with `cairn index` and moved between commits incrementally, and every issue
 * is asked with `cairn recall --batch` over code in each mode. BM25 over
 * whole files and a grep-like ranking run over the same tree in the same run,
 * over every source file of the set's languages. The gold files and spans are
 * read only after retrieval.
 * @module
 */
import { join } from "node:path";
import { MAX_QUERY_CHARS } from "../src/recall/recall.ts";
import { newStore, recallBatch, timedIndex } from "./cli.ts";
import { mirrorOf } from "./data.ts";
import { FileBaselines } from "./code_baselines.ts";
import { codeReport, type CodeRunResults } from "./code_report.ts";
import { ASKS, LIMIT, type RepoRun, type System, upgradeRun } from "./code_run.ts";
import type { Ranking } from "./code_scores.ts";
import {
  type CodeSet,
  type Instance,
  readGold,
  readInstances,
  SWEBENCH_LITE_DEV,
} from "./code_sets.ts";
import { commitTime, moveTree, type TreeChange, writeTree } from "./git_tree.ts";
import { runInfo, writeSection } from "./report.ts";

/** Runs the code benchmark on SWE-bench Lite's dev split (see {@linkcode benchCodeSet}). */
export function benchSwebench(only: string[] = []): Promise<void> {
  return benchCodeSet(SWEBENCH_LITE_DEV, only);
}

/**
 * Runs the benchmark on `set` over every repository (or those named in
 * `only`, e.g. `psf/requests`) and writes the set's section of
 * bench/RESULTS.md. With CAIRN_BENCH_WORK set, finished repositories are kept
 * there and reused by the next run, and one cut short resumes after the last
 * commit it ranked, so a long run can span sessions; with
 * CAIRN_BENCH_KEEP_STORES=1 too, the store as indexed at each base commit is
 * kept beside them (`owner+name.stores/COMMIT`), and CAIRN_BENCH_RESCORE=1 asks
 * cairn again over those kept stores (for changes to recall or chunking: each
 * store is first re-indexed from its commit's tree, which only chunks again
 * what the current chunker cuts differently).
 * CAIRN_BENCH_CONFIG names a config.json each new store starts with (another
 * embedding model, for instance).
 */
export async function benchCodeSet(set: CodeSet, only: string[] = []): Promise<void> {
  const results = await runCodeSet(set, only);
  const body = codeReport(results);
  console.log(body);
  await writeSection(set.section, await runInfo(`${set.suite} ${only.join(" ")}`.trim()), body);
}

/**
 * Ranks every issue of `set` (or of the repositories in `only`) as
 * {@linkcode benchCodeSet} describes, and reads the answers only after.
 */
export async function runCodeSet(set: CodeSet, only: string[] = []): Promise<CodeRunResults> {
  const all = await readInstances(set);
  // The baselines read the same files in every repository: those of every language of the set.
  const languages = [...new Set(all.map((i) => i.language))].sort();
  const unknown = only.filter((repo) => !all.some((i) => i.repo === repo));
  if (unknown.length) {
    throw new Error(
      `${set.data} has no issues of ${unknown.join(", ")}; its repositories: ` +
        [...new Set(all.map((i) => i.repo))].sort().join(", "),
    );
  }
  const count = (repo: string) => all.filter((i) => i.repo === repo).length;
  // Small repositories first: their figures arrive while the large ones index.
  const repos = [...new Set(all.map((i) => i.repo))]
    .filter((r) => only.length === 0 || only.includes(r))
    .sort((a, b) => count(a) - count(b));
  const work = Deno.env.get("CAIRN_BENCH_WORK") ??
    await Deno.makeTempDir({ prefix: `cairn-bench-${set.section}-` });
  await Deno.mkdir(work, { recursive: true });
  const runs: RepoRun[] = [];
  for (const repo of repos) {
    runs.push(await cachedRun(work, repo, all.filter((i) => i.repo === repo), languages));
  }
  if (!Deno.env.get("CAIRN_BENCH_WORK")) await Deno.remove(work, { recursive: true });

  // Only now read the answers.
  return { set, runs, gold: await readGold(set), instances: all, languages, only };
}

async function cachedRun(
  work: string,
  repo: string,
  instances: Instance[],
  languages: string[],
): Promise<RepoRun> {
  const saved = join(work, `${repo.replace("/", "+")}.json`);
  try {
    const run = upgradeRun(JSON.parse(await Deno.readTextFile(saved)) as RepoRun);
    if (Deno.env.get("CAIRN_BENCH_RESCORE") !== "1") return run;
    const rescored = await rescore(work, run, instances);
    await Deno.writeTextFile(saved, JSON.stringify(rescored));
    return rescored;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    const run = await runRepo(work, repo, instances, languages);
    await Deno.writeTextFile(saved, JSON.stringify(run));
    return run;
  }
}

async function runRepo(
  work: string,
  repo: string,
  instances: Instance[],
  languages: string[],
): Promise<RepoRun> {
  const gitDir = await mirrorOf(repo);
  const dir = join(work, repo.replace("/", "+"));
  const tree = join(dir, "tree");
  const store = join(dir, "store");
  const progressFile = join(dir, "progress.json");
  const project = repo.split("/")[1]!;
  const commits = await chronological(gitDir, [...new Set(instances.map((i) => i.base_commit))]);
  let { run, done } = await readProgress(progressFile) ?? { run: undefined, done: undefined };
  if (!run) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    await Deno.remove(`${dir}.stores`, { recursive: true }).catch(() => {});
    await Deno.mkdir(tree, { recursive: true });
    await newStore(store);
    run = {
      repo,
      instances: instances.length,
      commits: commits.length,
      files: 0,
      chunks: 0,
      firstIndexSeconds: 0,
      firstChunkSeconds: 0,
      peakRssMiB: 0,
      noChangeSeconds: 0,
      moves: [],
      rankings: {},
      truncatedQueries: 0,
    };
  } else {
    console.error(`${repo}: resuming after ${done!.slice(0, 8)}`);
  }
  let previous = done;
  for (const commit of commits.slice(done ? commits.indexOf(done) + 1 : 0)) {
    const change: TreeChange = previous
      ? await moveTree(gitDir, previous, commit, tree)
      : await writeTree(gitDir, commit, tree);
    const indexed = await timedIndex(store, tree, project);
    if (previous) {
      run.moves.push({ files: change.written + change.removed, seconds: indexed.seconds });
    } else {
      run.files = indexed.report.scanned;
      run.chunks = indexed.report.chunks;
      run.firstIndexSeconds = indexed.seconds;
      run.firstChunkSeconds = indexed.report.seconds;
      run.peakRssMiB = indexed.peakRssMiB;
      run.noChangeSeconds = (await timedIndex(store, tree, project)).seconds;
    }
    previous = commit;
    const here = instances.filter((i) => i.base_commit === commit);
    run.truncatedQueries += here.filter((i) => i.query.length > MAX_QUERY_CHARS).length;
    Object.assign(
      run.rankings,
      await rank({ store, tree, project, instances: here, dir, languages }),
    );
    if (Deno.env.get("CAIRN_BENCH_KEEP_STORES") === "1") {
      await keepStore(store, join(`${dir}.stores`, commit));
    }
    await Deno.writeTextFile(progressFile, JSON.stringify({ run, done: commit }));
    console.error(`${repo} ${commit.slice(0, 8)}: ${here.length} instances ranked`);
  }
  await Deno.remove(dir, { recursive: true });
  return run;
}

/**
 * How far an interrupted run of one repository got: its figures so far and
 * the last commit ranked (the tree and store in the work folder are at or a
 * little past it; moving them again from it is harmless).
 */
async function readProgress(
  file: string,
): Promise<{ run: RepoRun; done: string } | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(file));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/**
 * Copies a store as it is now. The blobs (content-addressed, never rewritten)
 * and the embedding cache (append-only) are hard-linked rather than copied:
 * a repository with many base commits (sympy: 74) would otherwise need tens
 * of gigabytes.
 */
async function keepStore(store: string, copy: string): Promise<void> {
  await Deno.mkdir(copy, { recursive: true });
  for await (const entry of Deno.readDir(store)) {
    const shared = entry.name === "blobs" || entry.name === "cache";
    const args = [shared ? "-al" : "-a", join(store, entry.name), join(copy, entry.name)];
    const output = await new Deno.Command("cp", { args }).output();
    if (!output.success) throw new Error(`could not copy ${store} to ${copy}`);
  }
}

async function chronological(gitDir: string, commits: string[]): Promise<string[]> {
  const times = new Map<string, number>();
  for (const commit of commits) times.set(commit, await commitTime(gitDir, commit));
  return commits.sort((a, b) => times.get(a)! - times.get(b)!);
}

/** cairn's rankings (every mode) and the baselines' for the instances at the tree's commit. */
async function rank(
  { store, tree, project, instances, dir, languages }: {
    store: string;
    tree: string;
    project: string;
    instances: Instance[];
    dir: string;
    languages: string[];
  },
): Promise<Record<string, Record<System, Ranking>>> {
  const ranked = await rankWithCairn(store, project, instances, dir);
  const baselines = await FileBaselines.build(tree, languages);
  for (const instance of instances) {
    const files = ranked[instance.id]!;
    files.bm25 = { files: baselines.bm25Files(instance.query, 10), functions: [] };
    files.grep = { files: baselines.grepFiles(instance.query, 10), functions: [] };
  }
  return ranked as Record<string, Record<System, Ranking>>;
}

async function rankWithCairn(
  store: string,
  project: string,
  instances: Instance[],
  dir: string,
): Promise<Record<string, Partial<Record<System, Ranking>>>> {
  const batch = join(dir, "batch.jsonl");
  await Deno.writeTextFile(
    batch,
    instances.flatMap((instance) =>
      ASKS.map(({ system, mode, filtered }) =>
        JSON.stringify({
          id: `${instance.id}\t${system}`,
          query: instance.query.slice(0, MAX_QUERY_CHARS),
          project,
          include: ["code"],
          ...(filtered ? { language: instance.language } : {}),
          mode,
        })
      )
    ).join("\n"),
  );
  const answers = new Map(
    (await recallBatch(store, batch, LIMIT)).map((answer) => [answer.id, answer.results]),
  );
  return Object.fromEntries(instances.map((instance) => [
    instance.id,
    Object.fromEntries(ASKS.map(({ system }) => {
      const results = answers.get(`${instance.id}\t${system}`) ?? [];
      return [system, {
        files: distinct(results.map((r) => r.file_path ?? "")),
        functions: distinct(results.map((r) => `${r.file_path}::${r.name}`)),
      }];
    })),
  ]));
}

/**
 * Asks cairn again over the stores a run kept (CAIRN_BENCH_KEEP_STORES), as
 * they were at each base commit, and replaces its rankings; the baselines and
 * the index timings stay those of the run (saved back, so the rankings can be
 * studied). Each store is first re-indexed from its commit's tree: a no-op
 * unless the chunker changed since (CHUNKER_VERSION), when the files are cut
 * again and only chunks with new text are embedded.
 */
async function rescore(work: string, run: RepoRun, instances: Instance[]): Promise<RepoRun> {
  const gitDir = await mirrorOf(run.repo);
  const stores = join(work, `${run.repo.replace("/", "+")}.stores`);
  const project = run.repo.split("/")[1]!;
  for (const commit of new Set(instances.map((i) => i.base_commit))) {
    const here = instances.filter((i) => i.base_commit === commit);
    const tree = await Deno.makeTempDir({ dir: work, prefix: "rescore-tree-" });
    try {
      await writeTree(gitDir, commit, tree);
      await timedIndex(join(stores, commit), tree, project);
    } finally {
      await Deno.remove(tree, { recursive: true });
    }
    const ranked = await rankWithCairn(join(stores, commit), project, here, work);
    for (const instance of here) Object.assign(run.rankings[instance.id]!, ranked[instance.id]);
  }
  return run;
}

function distinct(values: string[]): string[] {
  return [...new Set(values.filter(Boolean))];
}
