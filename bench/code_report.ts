/**
 * The RESULTS section of a code benchmark run: every system's file and
 * function accuracy, the same by language and by where the issues come from
 * (hybrid against BM25 over whole files), hybrid minus BM25 per repository,
 * and each repository's indexing times.
 * @module
 */
import { MAX_QUERY_CHARS } from "../src/recall/recall.ts";
import { sourceExtensions } from "./code_baselines.ts";
import { ASKS, LIMIT, type RepoRun, type System, SYSTEMS } from "./code_run.ts";
import { type IssueScore, scoreIssue, summarize } from "./code_scores.ts";
import type { CodeSet, Gold, Instance } from "./code_sets.ts";
import { median } from "./report.ts";

/** What a run's section is made from. */
export interface CodeRunResults {
  set: CodeSet;
  runs: readonly RepoRun[];
  gold: ReadonlyMap<string, Gold>;
  /** Every instance of the set (those not run are left out). */
  instances: readonly Instance[];
  /** The languages whose source files the baselines read. */
  languages: readonly string[];
  /** The repositories the run was limited to, if any. */
  only: readonly string[];
}

const f = (x: number) => x.toFixed(3);
const signed = (x: number) => (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(3);

/** The markdown section of a code benchmark run. */
export function codeReport(results: CodeRunResults): string {
  const { set, runs, gold, instances, languages, only } = results;
  const ids = runs.flatMap((run) => Object.keys(run.rankings));
  const languageOf = new Map(instances.map((i) => [i.id, i.language]));
  const sourceOf = new Map(instances.map((i) => [i.id, i.source ?? "issue"]));
  const rankingOf = rankingsByIssue(runs);
  const scoresOf = scoresOfRuns(runs, gold);
  // Runs kept from before an ask was added have no ranking for it: left out of the tables.
  const asked = SYSTEMS.filter((system) => ids.every((id) => rankingOf.get(id)![system]));
  const isCairn = (system: System) => ASKS.some((ask) => ask.system === system);
  const own = languages.length === 1
    ? `${capitalized(languages[0]!)} files only`
    : "own language only";
  const names: Record<System, string> = {
    hybrid: "cairn hybrid",
    lexical: "cairn lexical",
    vector: "cairn vector",
    "hybrid-language": `cairn hybrid, ${own}`,
    bm25: "BM25 whole files",
    grep: "grep (distinct query words)",
  };
  const rows = asked.map((system) => {
    const s = summarize(scoresOf(system, ids));
    const fn = isCairn(system) && s.withSpans ? [f(s.fn5), f(s.fn10)] : ["–", "–"];
    return `| ${names[system]} | ${[s.file1, s.file3, s.file5, s.file10].map(f).join(" | ")} | ` +
      `${fn.join(" | ")} |`;
  });
  const withSpans = summarize(scoresOf("hybrid", ids)).withSpans;
  const extensions = [...sourceExtensions(languages)].map((e) => `\`${e}\``).join(" ");
  const subset = only.length ? ` (subset: ${only.join(", ")})` : "";
  const repos = new Set(runs.map((run) => run.repo)).size;
  return `## ${set.title} (dev: ${ids.length} issues, ${plural(repos, "repository")}${subset})

Each issue's whole text is the query, asked as a user asks: over every file the index holds, with no
language filter (\`include: code\`); "${own}" adds \`language\` set to the language the set gives
the issue (its repository's main one).
The baselines rank whole source files of the same tree: every ${extensions} file. A file counts at k
when every gold file is among the first k distinct files, a function when every \`file::name\` gold
span is among the first k distinct \`file::name\` pairs (${withSpans} issues have spans). cairn returns
chunks (up to ${LIMIT}).

| system | file Acc@1 | Acc@3 | Acc@5 | Acc@10 | function Acc@5 | Acc@10 |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join("\n")}
${byGroup("language", ids, languageOf, scoresOf)}${byGroup("source", ids, sourceOf, scoresOf)}${
    byRepository(runs, languageOf, scoresOf)
  }

Indexing, per repository (wall times through the CLI, embeddings included; a
move is the incremental \`cairn index\` after rewriting the files that differ
between two base commits):

| repository | issues | commits | files | chunks | first index s | of it before embeddings s | peak RSS MiB | no-change re-index s | move: median files / s |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${runs.map(indexingRow).join("\n")}

${notes(runs, asked)}`;
}

/** Each of `ids`' scores as `system` ranked the issue. */
export type ScoresOf = (system: System, ids: readonly string[]) => IssueScore[];

/** The {@linkcode ScoresOf} of the issues `runs` ranked, against their answers in `gold`. */
export function scoresOfRuns(
  runs: readonly RepoRun[],
  gold: ReadonlyMap<string, Gold>,
): ScoresOf {
  const rankingOf = rankingsByIssue(runs);
  return (system, ids) => ids.map((id) => scoreIssue(rankingOf.get(id)![system], gold.get(id)!));
}

/** Every issue `runs` ranked, by id: each system's ranking of it. */
function rankingsByIssue(runs: readonly RepoRun[]) {
  return new Map(runs.flatMap((run) => Object.entries(run.rankings)));
}

/**
 * Hybrid against BM25 over whole files, group by group (a language, where the
 * issues come from); nothing when every issue is in one group.
 */
function byGroup(
  kind: "language" | "source",
  ids: string[],
  groupOf: Map<string, string>,
  scoresOf: ScoresOf,
): string {
  const groups = [...new Set(ids.map((id) => groupOf.get(id)!))].sort();
  if (groups.length < 2) return "";
  const rows = groups.map((group) => {
    const here = ids.filter((id) => groupOf.get(id) === group);
    const hybrid = summarize(scoresOf("hybrid", here));
    const bm25 = summarize(scoresOf("bm25", here));
    const fn = hybrid.withSpans ? `${f(hybrid.fn10)} (${hybrid.withSpans})` : "–";
    return `| ${group} | ${here.length} | ` +
      [hybrid.file1, hybrid.file5, hybrid.file10, bm25.file1, bm25.file5, bm25.file10].map(f)
        .join(" | ") +
      ` | ${signed(hybrid.file5 - bm25.file5)} | ${fn} |`;
  });
  const heading = kind === "language" ? "By language" : "By where the issues come from";
  return `
${heading} (file Acc@k; function Acc@10 over the issues with spans, their number in brackets):

| ${kind} | issues | hybrid @1 | @5 | @10 | BM25 @1 | @5 | @10 | hybrid − BM25 @5 | hybrid function @10 |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join("\n")}
`;
}

/** Hybrid minus BM25 over whole files, file Acc@5, repository by repository. */
function byRepository(
  runs: readonly RepoRun[],
  languageOf: Map<string, string>,
  scoresOf: ScoresOf,
): string {
  const rows = runs.map((run) => {
    const ids = Object.keys(run.rankings);
    const hybrid = summarize(scoresOf("hybrid", ids)).file5;
    const bm25 = summarize(scoresOf("bm25", ids)).file5;
    const language = [...new Set(ids.map((id) => languageOf.get(id)))].join(", ");
    return `| ${run.repo} | ${language} | ${ids.length} | ${f(hybrid)} | ${f(bm25)} | ` +
      `${signed(hybrid - bm25)} |`;
  });
  return `
File Acc@5 by repository:

| repository | language | issues | hybrid | BM25 whole files | hybrid − BM25 |
| --- | --- | ---: | ---: | ---: | ---: |
${rows.join("\n")}`;
}

function indexingRow(run: RepoRun): string {
  const moves = run.moves.map((m) => m.seconds);
  const changed = run.moves.map((m) => m.files);
  return `| ${run.repo} | ${run.instances} | ${run.commits} | ${run.files} | ${run.chunks} | ` +
    `${run.firstIndexSeconds.toFixed(0)} | ${run.firstChunkSeconds.toFixed(1)} | ` +
    `${run.peakRssMiB.toFixed(0)} | ${run.noChangeSeconds.toFixed(1)} | ` +
    (moves.length ? `${median(changed)} / ${median(moves).toFixed(1)}` : "–") + " |";
}

function notes(runs: readonly RepoRun[], asked: readonly System[]): string {
  const truncated = runs.reduce((sum, run) => sum + run.truncatedQueries, 0);
  const lines = [
    `${truncated} issue texts longer than cairn's query limit (${MAX_QUERY_CHARS} characters) ` +
    "were cut to it.",
  ];
  if (Deno.env.get("CAIRN_BENCH_RESCORE") === "1") {
    lines.push(
      "cairn's rankings were asked again (CAIRN_BENCH_RESCORE) over the stores an earlier run " +
        "kept at each base commit; the indexing figures are that run's.",
    );
  }
  if (!asked.includes("hybrid-language")) {
    lines.push(
      "These rankings come from runs made before the asks without a language filter: there, " +
        "cairn's rows were asked with `language: python` (`CAIRN_BENCH_RESCORE=1` asks again).",
    );
  }
  return lines.join("\n\n");
}

function plural(count: number, noun: string): string {
  return count === 1 ? `1 ${noun}` : `${count} ${noun.replace(/y$/, "ie")}s`;
}

function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
