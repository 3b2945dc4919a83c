/**
 * The dev sets the code benchmark runs: issues with the files (and, where
 * known, the functions) their fixes changed, one JSON line each in the
 * swebench-lite-dev form (`id`, `repo`, `base_commit`, `query`, `gold_files`,
 * `gold_spans`, and optionally `language`).
 * @module
 */
import { parseArgs } from "node:util";
import { readJsonl } from "./cli.ts";
import { type BenchDataSet, benchFile } from "./data.ts";

/** A dev set of issues with known fix locations. */
export interface CodeSet {
  /** The data set whose `instances.jsonl` holds it. */
  data: BenchDataSet;
  /** The `deno task bench` suite that runs it. */
  suite: string;
  /** Its section of bench/RESULTS.md. */
  section: string;
  /** The title of that section. */
  title: string;
  /** The language of rows that name none. */
  language: string;
}

/** SWE-bench Lite's dev split: 140 issues of nine Python repositories. */
export const SWEBENCH_LITE_DEV: CodeSet = {
  data: "swebench-lite-dev",
  suite: "code",
  section: "swebench",
  title: "SWE-bench Lite code search",
  language: "python",
};

/** Issue #28's second dev set, built by bench/mine_issues.ts: 28 repositories, five languages. */
export const MINED_DEV: CodeSet = {
  data: "mined",
  suite: "mined",
  section: "mined",
  title: "Mined issues code search",
  language: "python",
};

/** Every code dev set, by suite name. */
export const CODE_SETS: Record<string, CodeSet> = {
  code: SWEBENCH_LITE_DEV,
  mined: MINED_DEV,
};

/** One issue as the benchmark asks it: no answer in it. */
export interface Instance {
  id: string;
  repo: string;
  language: string;
  base_commit: string;
  query: string;
  /** Where a mined instance comes from: `multi-swe-bench` (an issue) or `fix-commit` (a message). */
  source?: string;
}

/** What an issue's fix changed: read only to score rankings. */
export interface Gold {
  gold_files: string[];
  /** Qualified names of the changed definitions, by file (empty where unknown). */
  gold_spans: Record<string, string[]>;
}

/** The issues of `set`, without their answers. */
export async function readInstances(set: CodeSet): Promise<Instance[]> {
  const rows = await readJsonl<Instance & { language?: string }>(
    await benchFile(set.data, "instances.jsonl"),
  );
  return rows.map(({ id, repo, language, base_commit, query, source }) => ({
    id,
    repo,
    language: language ?? set.language,
    base_commit,
    query,
    ...(source ? { source } : {}),
  }));
}

/** The answers of `set`, by issue id. */
export async function readGold(set: CodeSet): Promise<Map<string, Gold>> {
  const rows = await readJsonl<Gold & { id: string }>(
    await benchFile(set.data, "instances.jsonl"),
  );
  return new Map(rows.map(({ id, gold_files, gold_spans }) => [id, { gold_files, gold_spans }]));
}

/**
 * The work folder and the code set a script over a benchmark's kept stores is
 * given (`SCRIPT WORK_DIR [--set code|mined]`); prints its usage and exits
 * when they are not.
 */
export function workDirAndSet(script: string): { work: string; set: CodeSet } {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { set: { type: "string", default: "code" } },
    allowPositionals: true,
  });
  const [work] = positionals;
  const set = CODE_SETS[values.set];
  if (!work || !set) {
    console.error(
      `usage: deno run -A bench/${script} WORK_DIR [--set ${Object.keys(CODE_SETS).join("|")}]`,
    );
    Deno.exit(2);
  }
  return { work, set };
}
