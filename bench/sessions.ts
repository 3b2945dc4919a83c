/**
 * The session benchmark: a synthetic project's agent sessions
 * (bench/data/sessions/, read by bench/session_corpus.ts) and the shared
 * fixture transcripts, written as Claude Code transcripts, ingested through
 * `cairn ingest claude` and asked through `cairn recall --batch` with turns
 * only. Reports ranking per question kind (the decision kind included: what
 * the user chose when the agent asked or proposed a plan) for each mode and
 * the file-aware pipeline's ablations, how often the asking session's
 * in-context turns would leak without the exclusion, ingest speed with
 * embeddings, and the cost of re-ingesting unchanged transcripts.
 * @module
 */
import { join } from "node:path";
import { cairn, newStore, parseAnswers, recallBatchArgs, writeJsonl } from "./cli.ts";
import { benchData } from "./data.ts";
import { hitAt, mean, recallAt } from "./metrics.ts";
import { runInfo, writeSection } from "./report.ts";
import {
  type CorpusQuestion,
  type CorpusSession,
  PROJECT,
  QUESTIONS,
  SESSIONS,
} from "./session_corpus.ts";
import { toolRecords } from "./session_tool_records.ts";

const CWD = `/home/dev/${PROJECT}`;

/**
 * Questions on the shared fixtures, each answered by its session's one turn
 * (line 1), with the words of that turn that answer it.
 */
export const FIXTURE_QUESTIONS: Array<
  { query: string; kind: Kind; session: string; gold_text: string }
> = [
  {
    query: "where did we add a function that computes the product of two integers?",
    kind: "paraphrase",
    session: "c64cc478-3430-40fe-8e9c-4ee9986e9754",
    gold_text:
      "Add a function called multiply_numbers(a: int, b: int) -> int that multiplies two numbers together",
  },
  {
    query: "why were pycache and coverage output ignored by git?",
    kind: "paraphrase",
    session: "c64cc478-3430-40fe-8e9c-4ee9986e9754",
    gold_text: "these are generated files that shouldn't be tracked",
  },
  {
    query: "rewriting the library in another language with full coverage",
    kind: "paraphrase",
    session: "c7d3d95c-57f0-4359-8f4b-926a9bef5a3f",
    gold_text: "Port this Python project to Rust. Create a standalone Rust library",
  },
  {
    query: "history of Cargo.toml",
    kind: "file",
    session: "c7d3d95c-57f0-4359-8f4b-926a9bef5a3f",
    gold_text: "Port this Python project to Rust. Create a standalone Rust library",
  },
  {
    query: "what happened to hello.sh?",
    kind: "file",
    session: "de3b8b19-5bc0-4a2a-934a-1b6806567e25",
    gold_text: 'Write a shell script called hello.sh that prints "Hello world" and run it.',
  },
  {
    query: "why was test.txt changed?",
    kind: "file",
    session: "cb88ae13-898d-4076-aeb5-bc37191c5d2e",
    gold_text: 'Read test.txt and change the content to "modified content".',
  },
  {
    query: "what was done to src/main.py?",
    kind: "file",
    session: "e4743781-d0f5-4f75-b17c-6d22d30c5885",
    gold_text: "Read src/main.py and add a docstring to the top.",
  },
];

type Kind = CorpusQuestion["kind"];

/** One run of the batch: a name and what each batch line adds. */
interface Variant {
  name: string;
  mode: "hybrid" | "vector" | "lexical";
  sessionFiles?: false | { threshold?: number; file_distance?: number };
  /** false: in-context questions are asked without naming the asking session. */
  exclude?: false;
}

const VARIANTS: Variant[] = [
  { name: "hybrid", mode: "hybrid" },
  { name: "hybrid, no file pipeline", mode: "hybrid", sessionFiles: false },
  { name: "vector", mode: "vector" },
  { name: "vector, no file pipeline", mode: "vector", sessionFiles: false },
  { name: "lexical", mode: "lexical" },
  { name: "hybrid, no in-context exclusion", mode: "hybrid", exclude: false },
];

/** File-match distances tried (at the default threshold), in both modes that use vectors. */
const FILE_DISTANCES = [0.05, 0.15, 0.25, 0.35, 0.4];

/** A sessions question with its gold turn ids. */
export interface Question {
  id: string;
  query: string;
  kind: Kind;
  gold: string[];
  /** Words of a gold turn that answer the question: the shown answer should contain them. */
  gold_text: string;
  /** The asking session and its turns still in its context (in-context questions). */
  asking?: { session: string; inContext: string[] };
}

/** Runs the session benchmark and writes its section of bench/RESULTS.md. */
export async function benchSessions(): Promise<void> {
  const fixtureDir = await benchData("claude-code-transcripts");
  const work = await Deno.makeTempDir({ prefix: "cairn-bench-sessions-" });
  try {
    const transcripts = join(work, "transcripts");
    await Deno.mkdir(transcripts);
    const lines = await writeCorpus(transcripts);
    let fixtures = 0;
    for await (const entry of Deno.readDir(fixtureDir)) {
      await Deno.copyFile(join(fixtureDir, entry.name), join(transcripts, entry.name));
      fixtures++;
    }
    const questions = corpusQuestions(lines);
    const store = await newStore(join(work, "store"));

    let started = performance.now();
    const ingest = JSON.parse(
      await cairn(["--store", store, "ingest", "claude", transcripts, "--final", "--json"]),
    );
    const ingestSeconds = (performance.now() - started) / 1000;
    const turns = (ingest.transcripts as Array<{ turns: number }>).reduce((n, t) => n + t.turns, 0);
    const head = await storeHead(store);
    started = performance.now();
    await cairn(["--store", store, "ingest", "claude", transcripts, "--final", "--json"]);
    const againSeconds = (performance.now() - started) / 1000;
    const appended = (await storeHead(store)) - head;

    const rows: string[] = [];
    for (const variant of VARIANTS) {
      const rankings = await ask(store, work, questions, variant);
      rows.push(scoreRow(variant.name, questions, rankings));
    }
    const leaks = await leakRate(store, work, questions);
    const tuning: string[] = [];
    for (const mode of ["vector", "hybrid"] as const) {
      for (const fileDistance of FILE_DISTANCES) {
        const variant: Variant = {
          name: `${mode}, file distance ${fileDistance}`,
          mode,
          sessionFiles: { file_distance: fileDistance },
        };
        tuning.push(scoreRow(variant.name, questions, await ask(store, work, questions, variant)));
      }
    }

    const counts = (kind: Kind) => questions.filter((q) => q.kind === kind).length;
    const body = `## Sessions (synthetic project + fixture transcripts)

${SESSIONS.length} synthetic sessions of one project (bench/data/sessions/, written for this
benchmark) and the ${fixtures} shared fixture transcripts, as Claude Code
JSONL, ingested with \`cairn ingest claude\`: ${turns} turns. ${questions.length} questions
(${counts("paraphrase")} paraphrase, ${counts("file")} file: names a file and shares no other word
with the turn, ${counts("decision")} decision: what the user chose when the agent asked
or proposed a plan, ${counts("in-context")} in-context: asked from a session whose own later
turns also match and must be left out), each answered by known turns; recall over turns only,
top 10.

| variant | paraphrase Hit@1 | Hit@5 | file Hit@1 | Hit@5 | decision Hit@1 | Hit@5 | in-context Hit@1 | Hit@5 | all R@5 | all Hit@10 |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join("\n")}

In-context questions asked without naming the session: an in-context turn of the asking session is
in the top 5 for ${
      (leaks * 100).toFixed(0)
    }% of them (0% with \`session\` given: they are excluded).

The distance a turn that touched a named file is placed at (the default threshold, 0.45, keeps
every candidate here: bge-small's nearest turns are all closer):

| variant | paraphrase Hit@1 | Hit@5 | file Hit@1 | Hit@5 | decision Hit@1 | Hit@5 | in-context Hit@1 | Hit@5 | all R@5 | all Hit@10 |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${tuning.join("\n")}

Ingest with embeddings (bge-small, both cores): ${turns} turns in ${ingestSeconds.toFixed(1)} s
(${(turns / ingestSeconds).toFixed(1)} turns/s, process start and model load included).
Re-ingesting the unchanged transcripts: ${againSeconds.toFixed(2)} s, ${appended} events appended.`;
    await writeSection("sessions", await runInfo("sessions"), body);
    console.log(body);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

/**
 * Writes each corpus session as a Claude Code transcript: per turn the
 * prompt, each tool call with its result, the answer; a compact boundary
 * after `compactAfter`. Returns each session's turn lines.
 */
export async function writeCorpus(dir: string): Promise<Map<string, number[]>> {
  const lines = new Map<string, number[]>();
  for (const session of SESSIONS) {
    const records: unknown[] = [];
    const starts: number[] = [];
    const base = Date.parse(session.startedAt);
    const record = (type: string, content: unknown, extra: Record<string, unknown> = {}) => {
      records.push({
        type,
        sessionId: session.id,
        cwd: CWD,
        isSidechain: false,
        uuid: crypto.randomUUID(),
        timestamp: new Date(base + records.length * 1000).toISOString(),
        ...(content === undefined ? {} : { message: { role: type, content } }),
        ...extra,
      });
    };
    session.turns.forEach((turn, i) => {
      starts.push(records.length);
      record("user", turn.prompt);
      turn.tools.forEach((tool, j) => {
        const { input, result, toolUseResult } = toolRecords(tool, CWD);
        const id = `toolu_${i}_${j}`;
        record("assistant", [{ type: "tool_use", id, name: tool.name, input }]);
        record(
          "user",
          [{ type: "tool_result", tool_use_id: id, ...result }],
          toolUseResult === undefined ? {} : { toolUseResult },
        );
      });
      record("assistant", [{ type: "text", text: turn.answer }]);
      if (session.compactAfter === i) {
        record("system", undefined, {
          subtype: "compact_boundary",
          content: "Conversation compacted",
        });
      }
    });
    lines.set(session.id, starts);
    await Deno.writeTextFile(
      join(dir, `${session.id}.jsonl`),
      records.map((r) => JSON.stringify(r)).join("\n") + "\n",
    );
  }
  return lines;
}

/**
 * The corpus questions and the shared fixtures' questions, each with its gold
 * turn ids (`session:line`, from `lines` as {@linkcode writeCorpus} returns them).
 */
export function corpusQuestions(lines: ReadonlyMap<string, number[]>): Question[] {
  const turnId = (session: string, turn: number) => `${session}:${lines.get(session)![turn]}`;
  const questions: Question[] = QUESTIONS.map((q, i) => {
    const question: Question = {
      id: `q${i}`,
      query: q.query,
      kind: q.kind,
      gold: q.gold.map((g) => turnId(g.session, g.turn)),
      gold_text: q.gold_text,
    };
    const asking = q.asking ? SESSIONS.find((s) => s.id === q.asking) : undefined;
    if (asking) question.asking = { session: asking.id, inContext: inContext(asking, lines) };
    return question;
  });
  FIXTURE_QUESTIONS.forEach((q, i) =>
    questions.push({
      id: `f${i}`,
      query: q.query,
      kind: q.kind,
      gold: [`${q.session}:1`],
      gold_text: q.gold_text,
    })
  );
  return questions;
}

/** The turns of `session` after its compact boundary: still in its agent's context. */
function inContext(session: CorpusSession, lines: ReadonlyMap<string, number[]>): string[] {
  const starts = lines.get(session.id)!;
  return starts.slice((session.compactAfter ?? -1) + 1).map((line) => `${session.id}:${line}`);
}

async function ask(
  store: string,
  work: string,
  questions: readonly Question[],
  variant: Variant,
): Promise<Map<string, string[]>> {
  const batch = join(work, "batch.jsonl");
  await writeJsonl(
    batch,
    questions.map((q) => ({
      id: q.id,
      query: q.query,
      include: ["sessions"],
      mode: variant.mode,
      ...(q.asking && variant.exclude !== false ? { session: q.asking.session } : {}),
      ...(variant.sessionFiles === undefined ? {} : { session_files: variant.sessionFiles }),
    })),
  );
  const answers = parseAnswers(await cairn(recallBatchArgs(store, batch, 10)));
  return new Map(
    answers.map((a) => [a.id, a.results.map((r) => (r as { id?: string }).id ?? "")]),
  );
}

function scoreRow(
  name: string,
  questions: readonly Question[],
  rankings: ReadonlyMap<string, string[]>,
): string {
  const of = (kind: Kind) => questions.filter((q) => q.kind === kind);
  const hit = (list: readonly Question[], k: number) =>
    mean(list.map((q) => hitAt(rankings.get(q.id) ?? [], q.gold, k))).toFixed(3);
  const cells = (["paraphrase", "file", "decision", "in-context"] as const).flatMap((kind) => [
    hit(of(kind), 1),
    hit(of(kind), 5),
  ]);
  const r5 = mean(questions.map((q) => recallAt(rankings.get(q.id) ?? [], q.gold, 5)));
  return `| ${name} | ${cells.join(" | ")} | ${r5.toFixed(3)} | ${hit(questions, 10)} |`;
}

/** Share of in-context questions where, asked without the session, an in-context turn is in the top 5. */
async function leakRate(
  store: string,
  work: string,
  questions: readonly Question[],
): Promise<number> {
  const asked = questions.filter((q) => q.asking);
  const rankings = await ask(store, work, asked, { name: "", mode: "hybrid", exclude: false });
  return mean(asked.map((q) => {
    const top = new Set((rankings.get(q.id) ?? []).slice(0, 5));
    return q.asking!.inContext.some((id) => top.has(id)) ? 1 : 0;
  }));
}

async function storeHead(store: string): Promise<number> {
  return JSON.parse(await cairn(["--store", store, "status", "--json"])).head as number;
}
