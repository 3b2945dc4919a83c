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
  /** The issues of the data set it keeps, when it is a subset. */
  ids?: readonly string[];
}

/** SWE-bench Lite's dev split: 140 issues of nine Python repositories. */
export const SWEBENCH_LITE_DEV: CodeSet = {
  data: "swebench-lite-dev",
  suite: "code",
  section: "swebench",
  title: "SWE-bench Lite code search",
  language: "python",
};

/**
 * The fixed subset of SWE-bench Lite's dev split that embedding variants are
 * judged on (issue #22): 42 issues over all nine repositories, the first k of
 * each in the file's order (requests 6, flask 3, seaborn 4, xarray 5, pylint
 * 6, astropy 3, sphinx 6, pytest 6, sympy 3; fewer of the two largest so a
 * variant runs in about an hour).
 */
export const SWEBENCH_LITE_DEV_SUBSET: CodeSet = {
  ...SWEBENCH_LITE_DEV,
  section: "swebench-subset",
  title: "SWE-bench Lite code search, the embedding subset",
  ids: [
    "psf__requests-863",
    "psf__requests-1963",
    "psf__requests-2148",
    "psf__requests-2317",
    "psf__requests-2674",
    "psf__requests-3362",
    "sympy__sympy-11400",
    "sympy__sympy-11870",
    "sympy__sympy-11897",
    "astropy__astropy-6938",
    "astropy__astropy-7746",
    "astropy__astropy-12907",
    "pytest-dev__pytest-5103",
    "pytest-dev__pytest-5221",
    "pytest-dev__pytest-5227",
    "pytest-dev__pytest-5413",
    "pytest-dev__pytest-5495",
    "pytest-dev__pytest-5692",
    "pydata__xarray-3364",
    "pydata__xarray-4094",
    "pydata__xarray-4248",
    "pydata__xarray-4493",
    "pydata__xarray-5131",
    "sphinx-doc__sphinx-7686",
    "sphinx-doc__sphinx-7738",
    "sphinx-doc__sphinx-7975",
    "sphinx-doc__sphinx-8273",
    "sphinx-doc__sphinx-8282",
    "sphinx-doc__sphinx-8435",
    "pallets__flask-4045",
    "pallets__flask-4992",
    "pallets__flask-5063",
    "pylint-dev__pylint-5859",
    "pylint-dev__pylint-6506",
    "pylint-dev__pylint-7080",
    "pylint-dev__pylint-7114",
    "pylint-dev__pylint-7228",
    "pylint-dev__pylint-7993",
    "mwaskom__seaborn-2848",
    "mwaskom__seaborn-3010",
    "mwaskom__seaborn-3190",
    "mwaskom__seaborn-3407",
  ],
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
  const kept = set.ids ? new Set(set.ids) : undefined;
  const missing = set.ids?.filter((id) => !rows.some((row) => row.id === id)) ?? [];
  if (missing.length) throw new Error(`${set.data} has no issue ${missing.join(", ")}`);
  return rows.filter((row) => !kept || kept.has(row.id)).map((
    { id, repo, language, base_commit, query, source },
  ) => ({
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
