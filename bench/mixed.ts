/**
 * The mixed-store benchmark: LoCoMo's dev memories, the sessions corpus and
 * one code repository (psf/requests) in one store, as a user's store holds
 * memories, transcripts and code side by side. Every question is asked twice
 * with no project filter: over its own source alone, and over all three. The
 * gap per question family is what ranking across sources costs it; the share
 * of the top 5 taken by the other sources says why.
 *
 * With CAIRN_BENCH_WORK set, the built store is kept there and reused by the
 * next run (and by another checkout's cairn: CAIRN_BENCH_CHECKOUT, so two
 * versions of recall are compared on one store in one run).
 * @module
 */
import { join } from "node:path";
import {
  type BatchAnswer,
  cairn,
  newStore,
  parseAnswers,
  readJsonl,
  recallBatchArgs,
  writeJsonl,
} from "./cli.ts";
import { benchFile, mirrorOf } from "./data.ts";
import { writeTree } from "./git_tree.ts";
import { hitAt, mean, recallAt } from "./metrics.ts";
import { median, runInfo, writeSection } from "./report.ts";
import { TextTokenizer } from "../src/embed/tokenizer.ts";
import { shippedModelDir } from "../src/embed/load.ts";
import { DEFAULT_RESULTS } from "../src/recall/recall.ts";
import { SESSIONS } from "./session_corpus.ts";
import { corpusQuestions, writeCorpus } from "./sessions.ts";

const REPO = "psf/requests";

type Include = "memories" | "code" | "sessions";
const EVERYTHING: Include[] = ["memories", "code", "sessions"];

/**
 * One question: the source its gold lies in, the gold as result keys
 * (`type:id`), and the words that answer it (a gold memory's text, a gold
 * turn's quoted answer), which an agent reading the answer should see.
 */
interface Question {
  id: string;
  family: string;
  query: string;
  source: Include;
  gold: string[];
  goldText: string[];
  session?: string;
}

/** What the answers showed: each question's result keys and its markdown. */
interface Answers {
  keys: Map<string, string[]>;
  markdown: Map<string, string>;
}

/** Runs the mixed-store benchmark and writes its section of bench/RESULTS.md. */
export async function benchMixed(): Promise<void> {
  const kept = Deno.env.get("CAIRN_BENCH_WORK");
  const work = kept
    ? join(kept, "mixed")
    : await Deno.makeTempDir({ prefix: "cairn-bench-mixed-" });
  try {
    const { store, questions, built } = await buildOnce(work);
    const alone = await ask(store, work, questions, "alone");
    const mixed = await ask(store, work, questions, "mixed");
    const tokenizer = await TextTokenizer.load(
      join(shippedModelDir(), "tokenizer.json"),
      Number.MAX_SAFE_INTEGER,
    );
    const tokens = (text: string) => tokenizer.encode(text).ids.length - 2;
    const body = report(questions, alone, mixed, built, tokens);
    console.log(body);
    await writeSection("mixed", await runInfo("mixed"), body);
  } finally {
    if (!kept) await Deno.remove(work, { recursive: true });
  }
}

/** What the store holds, as built. */
interface Built {
  memories: number;
  turns: number;
  chunks: number;
  commit: string;
}

/** Builds the store (or finds it built in `work`) and lists the questions with their gold. */
async function buildOnce(
  work: string,
): Promise<{ store: string; questions: Question[]; built: Built }> {
  const store = join(work, "store");
  const marker = join(work, "built.json");
  const transcripts = join(work, "transcripts");
  const instances = (await readJsonl<
    { id: string; repo: string; base_commit: string; query: string; gold_files: string[] }
  >(await benchFile("swebench-lite-dev", "instances.jsonl"))).filter((i) => i.repo === REPO);
  const gitDir = await mirrorOf(REPO);
  const commit = await newest(gitDir, instances.map((i) => i.base_commit));
  const corpus = await fingerprint([SESSIONS, commit]);
  let { built, lines } = await savedBuild(marker, corpus) ?? {};
  if (!built || !lines) {
    await Deno.remove(work, { recursive: true }).catch(() => {});
    await Deno.mkdir(transcripts, { recursive: true });
    await newStore(store);
    const memories = await benchFile("locomo-dev", "memories.jsonl");
    await cairn(["--store", store, "import", memories]);
    const tree = join(work, "tree");
    await Deno.mkdir(tree);
    await writeTree(gitDir, commit, tree);
    const indexed = JSON.parse(
      await cairn(["--store", store, "index", tree, "--project", "requests", "--json"]),
    );
    lines = await writeCorpus(transcripts);
    const ingest = JSON.parse(
      await cairn(["--store", store, "ingest", "claude", transcripts, "--final", "--json"]),
    );
    built = {
      memories: (await readJsonl(memories)).length,
      turns: (ingest.transcripts as Array<{ turns: number }>).reduce((n, t) => n + t.turns, 0),
      chunks: indexed.chunks,
      commit,
    };
    await Deno.writeTextFile(marker, JSON.stringify({ corpus, built, lines: [...lines] }));
  }
  const locomo = await readJsonl<{ id: string; query: string; gold: string[] }>(
    await benchFile("locomo-dev", "queries.jsonl"),
  );
  const memoryText = new Map(
    (await readJsonl<{ id: string; content: string }>(
      await benchFile("locomo-dev", "memories.jsonl"),
    ))
      .map((m) => [m.id, m.content]),
  );
  const questions: Question[] = [
    ...locomo.map((q) => ({
      id: `m:${q.id}`,
      family: "memories (LoCoMo)",
      query: q.query,
      source: "memories" as const,
      gold: q.gold.map((id) => `memory:${id}`),
      goldText: q.gold.map((id) => memoryText.get(id) ?? ""),
    })),
    ...corpusQuestions(lines).filter((q) => q.id.startsWith("q")).map((q) => ({
      id: `s:${q.id}`,
      family: `sessions: ${q.kind}`,
      query: q.query,
      source: "sessions" as const,
      gold: q.gold.map((id) => `turn:${id}`),
      goldText: [q.gold_text],
      ...(q.asking ? { session: q.asking.session } : {}),
    })),
    ...instances.map((i) => ({
      id: `c:${i.id}`,
      family: "code (requests)",
      query: i.query,
      source: "code" as const,
      gold: i.gold_files.map((file) => `code:${file}`),
      goldText: [],
    })),
  ];
  return { store, questions, built };
}

/** Whether one of the `texts` appears in the markdown, whitespace and case aside. */
function visible(markdown: string, texts: readonly string[]): number {
  const flat = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();
  const shown = flat(markdown);
  return texts.some((text) => shown.includes(flat(text))) ? 1 : 0;
}

/** The store built before in the work folder, unless it holds another corpus or commit. */
async function savedBuild(
  marker: string,
  corpus: string,
): Promise<{ built: Built; lines: Map<string, number[]> } | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(marker);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  const saved = JSON.parse(text) as {
    corpus?: string;
    built: Built;
    lines: Array<[string, number[]]>;
  };
  return saved.corpus === corpus ? { built: saved.built, lines: new Map(saved.lines) } : undefined;
}

/** A SHA-256 of what the store is built from. */
async function fingerprint(value: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The newest of `commits` in the repository's history. */
async function newest(gitDir: string, commits: string[]): Promise<string> {
  const output = await new Deno.Command("git", {
    args: ["--git-dir", gitDir, "rev-list", "--no-walk", "--date-order", ...new Set(commits)],
    stdout: "piped",
  }).output();
  if (!output.success) throw new Error(`git rev-list failed in ${gitDir} (fetch ${REPO} first)`);
  return new TextDecoder().decode(output.stdout).split("\n")[0]!;
}

/**
 * Asks every question over its own source (`alone`) or over everything;
 * returns the result keys and the markdown answers, as many results as a
 * call that names no limit gets (enough for R@5 and Hit@1).
 */
async function ask(
  store: string,
  work: string,
  questions: readonly Question[],
  over: "alone" | "mixed",
): Promise<Answers> {
  const batch = join(work, `batch-${over}.jsonl`);
  await writeJsonl(
    batch,
    questions.map((q) => ({
      id: q.id,
      query: q.query,
      include: over === "alone" ? [q.source] : EVERYTHING,
      ...(q.session ? { session: q.session } : {}),
      markdown: true,
    })),
  );
  const answers = parseAnswers(await cairn(recallBatchArgs(store, batch, DEFAULT_RESULTS)));
  return {
    keys: new Map(answers.map((a) => [a.id, a.results.map(resultKey)])),
    markdown: new Map(answers.map((a) => [a.id, a.markdown ?? ""])),
  };
}

/** A result as `type:id`: a memory by its imported id, a turn by its id, code by its file. */
function resultKey(result: BatchAnswer["results"][number]): string {
  switch (result.type) {
    case "memory":
      return `memory:${result.source_id ?? result.id}`;
    case "code":
      return `code:${result.file_path}`;
    default:
      return `turn:${result.id}`;
  }
}

function report(
  questions: readonly Question[],
  aloneAnswers: Answers,
  mixedAnswers: Answers,
  built: Built,
  tokens: (text: string) => number,
): string {
  const alone = aloneAnswers.keys;
  const mixed = mixedAnswers.keys;
  const families = [...new Set(questions.map((q) => q.family))];
  const rows = families.map((family) => {
    const asked = questions.filter((q) => q.family === family);
    const r5 = (rankings: ReadonlyMap<string, string[]>) =>
      mean(asked.map((q) => recallAt(rankings.get(q.id) ?? [], q.gold, 5)));
    const h1 = (rankings: ReadonlyMap<string, string[]>) =>
      mean(asked.map((q) => hitAt(rankings.get(q.id) ?? [], q.gold, 1)));
    const intruders = mean(asked.map((q) => {
      const top = (mixed.get(q.id) ?? []).slice(0, 5);
      const own = `${{ memories: "memory", code: "code", sessions: "turn" }[q.source]}:`;
      return top.length === 0 ? 0 : top.filter((key) => !key.startsWith(own)).length / top.length;
    }));
    const gap = r5(mixed) - r5(alone);
    const shown = asked.filter((q) => q.goldText.length > 0);
    const seen = (answers: Answers) =>
      shown.length === 0
        ? "-"
        : mean(shown.map((q) => visible(answers.markdown.get(q.id) ?? "", q.goldText))).toFixed(3);
    const size = median(asked.map((q) => tokens(mixedAnswers.markdown.get(q.id) ?? "")));
    return `| ${family} | ${asked.length} | ${r5(alone).toFixed(3)} | ${r5(mixed).toFixed(3)} | ${
      gap >= 0 ? "+" : ""
    }${gap.toFixed(3)} | ${h1(alone).toFixed(3)} | ${h1(mixed).toFixed(3)} | ${
      (intruders * 100).toFixed(0)
    } % | ${seen(aloneAnswers)} | ${seen(mixedAnswers)} | ${size} |`;
  });
  return `## Mixed store: every source in one store (\`deno task bench mixed\`)

One store holds LoCoMo's dev conversations (${built.memories} memories), the sessions corpus
(${built.turns} turns) and ${REPO} at ${built.commit.slice(0, 8)} (${built.chunks} chunks). Each
question is asked with no project filter, hybrid, for the ${DEFAULT_RESULTS} results a call gets
by default: over its own source alone, and over all three sources. Code counts a result by its file
(gold: the files the fix changed). "Other sources in top 5": the share of the mixed answer's first
five results that come from the other sources. "Answer visible": the share of questions whose
answering words (a gold memory's whole text, the words quoted from a gold turn) appear in the
markdown answer an agent reads, over the own source alone and over everything; "tokens": the answer
over everything, median size (bge-small's WordPiece count).

| family | questions | R@5 alone | R@5 mixed | gap | Hit@1 alone | Hit@1 mixed | other sources in top 5 | answer visible alone | mixed | tokens |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join("\n")}`;
}
