/**
 * Builds the second code-search dev set of issue #28 ("more dev repositories"):
 * real issues with known fix locations from public repositories that are not
 * in swebench-lite-dev, in Python, TypeScript/JavaScript, Go and Rust, rebuilt
 * from fetched git mirrors only. Two sources, per repository:
 *
 * 1. Multi-SWE-bench issues, where a fetched mirror holds its data files
 *    (`kuppireddypravalika/MSWE-validation-dataset`): the query is the issue
 *    text as written (titles and bodies of the resolved issues), the base
 *    commit the pull request's base.
 * 2. Fixing commits mined from the repository's history (non-merge commits on
 *    the mirror's HEAD): the message says it fixes something (see
 *    {@linkcode isFixMessage}); the query is the message, subject and body,
 *    with what gives the answer away stripped (see {@linkcode cleanQuery}:
 *    trailers, URLs, issue and pull references with their `Fixes` phrase, a
 *    conventional-commit scope, tokens that name a file); the base commit is
 *    its first parent.
 *
 * In both, the gold files are the non-test product source files the fix
 * changed that exist at the base (modified or deleted; new files cannot be
 * found before they exist); a fix that changes more than five source files,
 * or none (only tests, docs or non-code files), is left out; a mined commit
 * whose change to the gold files is only comments and blank lines is left
 * out, and its message needs at least fifteen words once cleaned. `gold_spans` are the
 * dot-qualified Python definitions enclosing the changed lines (by
 * indentation); other languages get none. A repository takes at most
 * `--per-repo` instances, Multi-SWE-bench ones first, then mined commits that
 * refer to none of its Multi-SWE-bench issues or pulls; each source is picked
 * by a shuffle seeded with `--seed` and the repository's name, from
 * candidates sorted by commit.
 *
 * Writes `instances.jsonl` (the swebench-lite-dev form plus `language`,
 * `source` and, for mined ones, `fix_commit`) and `manifest.json` (every
 * repository's mirror commit, its candidates and choices, counts per language
 * and source) to `--out` (default /work/bench-data/mined), outside the
 * repository: the data is other people's.
 *
 * @example
 * ```sh
 * deno run -A bench/mine_issues.ts --out /work/bench-data/mined --per-repo 10 --seed 28
 * ```
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  changedOldLines,
  cleanQuery,
  isCommentOnly,
  isFixMessage,
  pathKind,
  pythonSpans,
  referencedNumbers,
  seededPick,
  wordCount,
} from "./mined_commits.ts";
import { git } from "./git_tree.ts";
import { msweIssue, parseMsweJsonl } from "./mswe_issues.ts";

/** One instance of the set, in the swebench-lite-dev form plus where it came from. */
export interface MinedInstance {
  id: string;
  repo: string;
  language: string;
  source: "multi-swe-bench" | "fix-commit";
  base_commit: string;
  fix_commit?: string;
  query: string;
  gold_files: string[];
  gold_spans: Record<string, string[]>;
}

/** A repository of the set: its language and, if any, its Multi-SWE-bench data file. */
export interface RepoSpec {
  repo: string;
  language: "python" | "typescript" | "javascript" | "go" | "rust";
  mswe?: string;
}

/** The rules of a run. */
export interface MineOptions {
  perRepo: number;
  seed: string;
  minWords: number;
  maxSourceFiles: number;
}

/** What mining one repository found and chose. */
export interface RepoReport {
  repo: string;
  language: string;
  head: string;
  commitsScanned: number;
  fixCandidates: number;
  msweRecords: number;
  msweUsable: number;
  chosen: { "multi-swe-bench": number; "fix-commit": number };
}

/** The mirror that holds Multi-SWE-bench's per-repository data files. */
export const MSWE_MIRROR = "kuppireddypravalika/MSWE-validation-dataset";
const MSWE_DATA = "MSWE-agent/data";

/** The repositories of the set: small to medium (under ~1,500 files), none of swebench-lite-dev's. */
export const REPOSITORIES: readonly RepoSpec[] = [
  { repo: "encode/httpx", language: "python" },
  { repo: "Textualize/rich", language: "python" },
  { repo: "pallets/click", language: "python" },
  { repo: "python-attrs/attrs", language: "python" },
  { repo: "psf/black", language: "python" },
  { repo: "marshmallow-code/marshmallow", language: "python" },
  { repo: "colinhacks/zod", language: "typescript" },
  { repo: "sindresorhus/ky", language: "typescript" },
  { repo: "pmndrs/zustand", language: "typescript" },
  { repo: "axios/axios", language: "javascript", mswe: "js/axios__axios_dataset.jsonl" },
  {
    repo: "expressjs/express",
    language: "javascript",
    mswe: "js/expressjs__express_dataset.jsonl",
  },
  { repo: "iamkun/dayjs", language: "javascript", mswe: "js/iamkun__dayjs_dataset.jsonl" },
  {
    repo: "anuraghazra/github-readme-stats",
    language: "javascript",
    mswe: "js/anuraghazra__github-readme-stats_dataset.jsonl",
  },
  { repo: "fastify/fastify", language: "javascript" },
  { repo: "spf13/cobra", language: "go" },
  { repo: "gin-gonic/gin", language: "go" },
  { repo: "go-chi/chi", language: "go" },
  { repo: "junegunn/fzf", language: "go" },
  { repo: "spf13/viper", language: "go" },
  { repo: "urfave/cli", language: "go" },
  { repo: "BurntSushi/ripgrep", language: "rust", mswe: "rust/BurntSushi__ripgrep_dataset.jsonl" },
  { repo: "sharkdp/fd", language: "rust", mswe: "rust/sharkdp__fd_dataset.jsonl" },
  { repo: "sharkdp/bat", language: "rust", mswe: "rust/sharkdp__bat_dataset.jsonl" },
  { repo: "serde-rs/serde", language: "rust", mswe: "rust/serde-rs__serde_dataset.jsonl" },
  { repo: "tokio-rs/bytes", language: "rust", mswe: "rust/tokio-rs__bytes_dataset.jsonl" },
  { repo: "rayon-rs/rayon", language: "rust", mswe: "rust/rayon-rs__rayon_dataset.jsonl" },
  { repo: "tokio-rs/tracing", language: "rust", mswe: "rust/tokio-rs__tracing_dataset.jsonl" },
  { repo: "clap-rs/clap", language: "rust" },
];

/** A non-merge commit of a history with the paths it changed against its parent. */
interface LoggedCommit {
  sha: string;
  parent: string;
  message: string;
  changes: Array<{ status: string; path: string }>;
}

/** A candidate before the spans are read. */
type Candidate = Omit<MinedInstance, "gold_spans">;

/**
 * Mines one repository's history for fixing commits and returns its
 * candidates as instances without spans, sorted by fix commit. Commits that
 * refer to any number in `exclude` (issues a Multi-SWE-bench instance of the
 * repository already covers) are left out.
 */
export async function mineCommits(
  gitDir: string,
  spec: RepoSpec,
  options: MineOptions,
  exclude: ReadonlySet<number> = new Set(),
): Promise<{ scanned: number; candidates: Candidate[] }> {
  const commits = parseLog(
    await gitText(gitDir, [
      "log",
      "--no-merges",
      "--no-renames",
      "--name-status",
      "--format=%x1e%H %P%n%B%x1f",
      "HEAD",
    ]),
  );
  const candidates: Candidate[] = [];
  for (const commit of commits) {
    const candidate = fixCandidate(commit, spec, options);
    if (!candidate || referencedNumbers(commit.message).some((n) => exclude.has(n))) continue;
    const diff = await gitText(gitDir, [
      "diff",
      "-U0",
      candidate.base_commit,
      commit.sha,
      "--",
      ...candidate.gold_files,
    ]);
    if (!isCommentOnly(diff)) candidates.push(candidate);
  }
  candidates.sort((a, b) => a.fix_commit!.localeCompare(b.fix_commit!));
  return { scanned: commits.length, candidates };
}

/** The instance a commit makes, or undefined when it does not qualify. */
function fixCandidate(
  commit: LoggedCommit,
  spec: RepoSpec,
  options: MineOptions,
): Candidate | undefined {
  if (!commit.parent || !isFixMessage(commit.message)) return undefined;
  const source = commit.changes.filter((change) => pathKind(change.path) === "source");
  if (source.length === 0 || source.length > options.maxSourceFiles) return undefined;
  const gold = source.filter((change) => change.status !== "A").map((change) => change.path);
  if (gold.length === 0) return undefined;
  const query = cleanQuery(commit.message, commit.changes.map((change) => change.path));
  if (wordCount(query) < options.minWords) return undefined;
  return {
    id: `${spec.repo.replace("/", "__")}-${commit.sha.slice(0, 10)}`,
    repo: spec.repo,
    language: spec.language,
    source: "fix-commit",
    base_commit: commit.parent,
    fix_commit: commit.sha,
    query,
    gold_files: gold.sort(),
  };
}

function parseLog(output: string): LoggedCommit[] {
  return output.split("\x1e").filter(Boolean).flatMap((record) => {
    const [head, tail = ""] = record.split("\x1f");
    const newline = head!.indexOf("\n");
    const [sha, parent] = head!.slice(0, newline).split(" ");
    if (!sha) return [];
    const changes = tail.split("\n").flatMap((line) => {
      const [status, path] = line.split("\t");
      // Quoted paths (unusual characters) are left out rather than unquoted.
      return status && path && !path.startsWith('"') ? [{ status: status[0]!, path }] : [];
    });
    return [{ sha, parent: parent ?? "", message: head!.slice(newline + 1).trim(), changes }];
  });
}

/**
 * The Multi-SWE-bench instances of a repository whose base commit its
 * mirror holds, with their gold chosen by the same rules as mined commits.
 */
export async function msweCandidates(
  gitDir: string,
  spec: RepoSpec,
  records: string,
  options: MineOptions,
): Promise<
  { records: number; candidates: Candidate[]; numbers: Set<number>; patches: Map<string, string> }
> {
  const parsed = parseMsweJsonl(records);
  const issues = parsed.map(msweIssue);
  const patches = new Map(issues.map((issue, i) => [issue.id, parsed[i]!.fix_patch]));
  const numbers = new Set(issues.flatMap((issue) => issue.numbers));
  const candidates: Candidate[] = [];
  for (const issue of issues) {
    const source = issue.patchFiles.filter((path) => pathKind(path) === "source");
    if (source.length === 0 || source.length > options.maxSourceFiles) continue;
    if (!(await exists(gitDir, `${issue.baseCommit}^{commit}`))) continue;
    const gold = [];
    for (const path of source) {
      if (await exists(gitDir, `${issue.baseCommit}:${path}`)) gold.push(path);
    }
    if (gold.length === 0 || issue.query.trim() === "") continue;
    candidates.push({
      id: issue.id,
      repo: spec.repo,
      language: spec.language,
      source: "multi-swe-bench",
      base_commit: issue.baseCommit,
      query: issue.query,
      gold_files: gold.sort(),
    });
  }
  candidates.sort((a, b) => a.id.localeCompare(b.id));
  return { records: issues.length, candidates, numbers, patches };
}

/** Adds the Python definitions each gold file's change touched, from the diff of base and fix. */
export async function withSpans(
  gitDir: string,
  candidate: Candidate,
  fixPatch = "",
): Promise<MinedInstance> {
  const spans: Record<string, string[]> = {};
  for (const file of candidate.gold_files.filter((path) => /\.pyi?$/.test(path))) {
    const diff = candidate.fix_commit
      ? await gitText(gitDir, [
        "diff",
        "-U0",
        candidate.base_commit,
        candidate.fix_commit,
        "--",
        file,
      ])
      : fileSection(fixPatch, file);
    const base = await gitText(gitDir, ["show", `${candidate.base_commit}:${file}`]);
    const names = pythonSpans(base, changedOldLines(diff));
    if (names.length > 0) spans[file] = names;
  }
  return { ...candidate, gold_spans: spans };
}

function fileSection(patch: string, file: string): string {
  const start = patch.indexOf(`diff --git a/${file} `);
  if (start < 0) return "";
  const next = patch.indexOf("\ndiff --git ", start + 1);
  return patch.slice(start, next < 0 ? undefined : next);
}

/**
 * Mines one repository from both sources and picks at most `perRepo`
 * instances: Multi-SWE-bench ones first, mined commits for the rest.
 */
export async function mineRepository(
  gitDir: string,
  spec: RepoSpec,
  options: MineOptions,
  msweRecords = "",
): Promise<{ report: RepoReport; instances: MinedInstance[] }> {
  const mswe = await msweCandidates(gitDir, spec, msweRecords, options);
  const mined = await mineCommits(gitDir, spec, options, mswe.numbers);
  const fromMswe = seededPick(
    mswe.candidates,
    options.perRepo,
    `${options.seed}:${spec.repo}:mswe`,
  );
  const fromCommits = seededPick(
    mined.candidates,
    options.perRepo - fromMswe.length,
    `${options.seed}:${spec.repo}:commits`,
  );
  const instances = [];
  for (const candidate of [...fromMswe, ...fromCommits]) {
    instances.push(await withSpans(gitDir, candidate, mswe.patches.get(candidate.id)));
  }
  const report: RepoReport = {
    repo: spec.repo,
    language: spec.language,
    head: (await gitText(gitDir, ["rev-parse", "HEAD"])).trim(),
    commitsScanned: mined.scanned,
    fixCandidates: mined.candidates.length,
    msweRecords: mswe.records,
    msweUsable: mswe.candidates.length,
    chosen: { "multi-swe-bench": fromMswe.length, "fix-commit": fromCommits.length },
  };
  return { report, instances };
}

async function exists(gitDir: string, object: string): Promise<boolean> {
  const output = await new Deno.Command("git", {
    args: ["--git-dir", gitDir, "cat-file", "-e", object],
    stdout: "null",
    stderr: "null",
  }).output();
  return output.success;
}

async function gitText(gitDir: string, args: string[]): Promise<string> {
  return new TextDecoder().decode(await git(gitDir, args));
}

/** The mirror folder of `repo` under `mirrors` (`owner+name/repo`), or undefined if absent. */
async function mirror(mirrors: string, repo: string): Promise<string | undefined> {
  const gitDir = join(mirrors, repo.replace("/", "+"), "repo");
  return await Deno.stat(join(gitDir, "HEAD")).then(() => gitDir, () => undefined);
}

/** Counts of instances by one of their fields. */
function countBy(instances: readonly MinedInstance[], key: "language" | "source" | "repo") {
  const counts: Record<string, number> = {};
  for (const instance of instances) counts[instance[key]] = (counts[instance[key]] ?? 0) + 1;
  return counts;
}

/** Builds the set from the mirrors under `mirrors` and writes it to `out`; returns its manifest. */
export async function buildMinedSet(
  mirrors: string,
  out: string,
  options: MineOptions,
  only: readonly string[] = [],
): Promise<Record<string, unknown>> {
  const started = performance.now();
  const msweDir = await mirror(mirrors, MSWE_MIRROR);
  const msweCommit = msweDir ? (await gitText(msweDir, ["rev-parse", "HEAD"])).trim() : undefined;
  const reports: RepoReport[] = [];
  const missing: string[] = [];
  const instances: MinedInstance[] = [];
  for (const spec of REPOSITORIES.filter((s) => only.length === 0 || only.includes(s.repo))) {
    const gitDir = await mirror(mirrors, spec.repo);
    if (!gitDir) {
      missing.push(spec.repo);
      console.error(`${spec.repo}: no mirror under ${mirrors}; fetch it (github:${spec.repo})`);
      continue;
    }
    const records = spec.mswe && msweDir
      ? await gitText(msweDir, ["show", `${msweCommit}:${MSWE_DATA}/${spec.mswe}`])
      : "";
    const mined = await mineRepository(gitDir, spec, options, records);
    reports.push(mined.report);
    instances.push(...mined.instances);
    console.error(
      `${spec.repo}: ${mined.instances.length} (${
        mined.report.chosen["multi-swe-bench"]
      } issues, ` +
        `${mined.report.chosen["fix-commit"]} commits of ${mined.report.fixCandidates} candidates)`,
    );
  }
  if (!msweDir) console.error(`no mirror of ${MSWE_MIRROR}: the set holds mined commits only`);
  await Deno.mkdir(out, { recursive: true });
  await Deno.writeTextFile(
    join(out, "instances.jsonl"),
    instances.map((instance) => JSON.stringify(instance)).join("\n") + "\n",
  );
  const manifest = {
    created: new Date().toISOString(),
    options,
    multiSweBench: msweDir ? { mirror: MSWE_MIRROR, commit: msweCommit } : null,
    missingMirrors: missing,
    repos: reports,
    total: instances.length,
    byLanguage: countBy(instances, "language"),
    bySource: countBy(instances, "source"),
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
  await Deno.writeTextFile(join(out, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  return manifest;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      out: { type: "string", default: "/work/bench-data/mined" },
      mirrors: {
        type: "string",
        default: Deno.env.get("CAIRN_BENCH_MIRRORS") ??
          new URL("../../.mirror/", import.meta.url).pathname,
      },
      "per-repo": { type: "string", default: "10" },
      seed: { type: "string", default: "28" },
      "min-words": { type: "string", default: "15" },
      "max-source-files": { type: "string", default: "5" },
      only: { type: "string", default: "" },
    },
  });
  const manifest = await buildMinedSet(values.mirrors, values.out, {
    perRepo: Number(values["per-repo"]),
    seed: values.seed,
    minWords: Number(values["min-words"]),
    maxSourceFiles: Number(values["max-source-files"]),
  }, values.only.split(",").filter(Boolean));
  console.log(JSON.stringify({
    out: values.out,
    total: manifest.total,
    byLanguage: manifest.byLanguage,
    bySource: manifest.bySource,
    seconds: manifest.seconds,
  }));
}
