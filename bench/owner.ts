/**
 * Living with cairn through its owner: the wall clock of one-shot commands
 * (`deno task cairn …`, process start included) against a warm owner at
 * 10,000 memories, the first command when no owner runs, and `cairn index`
 * of sphinx (1,900 files) returning before its vectors, with searches while
 * they are computed, and how soon a memory remembered meanwhile is found by meaning.
 * @module
 */
import { join } from "node:path";
import { cairn, cairnThroughOwner, newStore, withEnv } from "./cli.ts";
import { mirrorOf } from "./data.ts";
import { writeTree } from "./git_tree.ts";
import { locomoQuestions, tenThousandMemories } from "./memory_speed.ts";
import { median, percentile, runInfo, writeSection } from "./report.ts";

const SPHINX = "sphinx-doc/sphinx";
const SPHINX_AT = "v8.2.0";
const QUERIES = 50;
const REMEMBERS = 20;
const COLD_STARTS = 3;
const DURING_EMBEDDING = 10;
/** How long a memory remembered behind sphinx's vectors may take to be found by meaning. */
const MEMORY_BEHIND_CODE_MS = 600_000;

/** Runs the owner suite and writes its section of bench/RESULTS.md. */
export async function benchOwner(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-bench-owner-" });
  try {
    const memories = await warmOwnerAtTenThousand(join(dir, "memories"));
    // An empty user cache: vectors of sphinx kept from an earlier run would leave nothing waiting.
    const sphinx = await withEnv(
      { CAIRN_CACHE_DIR: join(dir, "cache") },
      () => indexWhileEmbedding(join(dir, "sphinx")),
    );
    const f = (ms: number) => ms.toFixed(0);
    const row = (what: string, ms: number[]) =>
      `| ${what} | ${ms.length} | ${f(median(ms))} | ${f(percentile(ms, 0.95))} | ${
        f(Math.max(...ms))
      } |`;
    const body = `## Through the owner: one-shot commands and indexing

Wall clock of one-shot commands as a user runs them, process start included (Deno ${Deno.version.deno}),
against the store's owner: \`deno task cairn …\` (the README's form: \`deno task\` starts a second
Deno process), and \`deno run main.ts …\` (one process, as an installed script runs). ${
      memories.count.toLocaleString("en-US")
    } memories (the memory-speed
suite's LoCoMo copies, imported with \`--no-owner\`).

| command | runs | p50 ms | p95 ms | max ms |
| --- | ---: | ---: | ---: | ---: |
${row("first command, no owner running (`recall` starts the owner), `deno task`", memories.cold)}
${
      row(
        "`recall` (hybrid, top 10, a LoCoMo question each), warm owner, `deno task`",
        memories.recall.task,
      )
    }
${row("the same, `deno run main.ts`", memories.recall.run)}
${row("`remember`, warm owner, `deno task`", memories.remember.task)}
${row("the same, `deno run main.ts`", memories.remember.run)}
${row("`--help` (all of cairn loaded, no store, no owner), `deno task`", memories.floor.task)}
${row("the same, `deno run main.ts`", memories.floor.run)}

\`cairn index\` of ${SPHINX} ${SPHINX_AT} (${sphinx.files} files, ${sphinx.chunks} chunks) through a
new owner, from an empty user cache: returned in **${
      (sphinx.indexMs / 1000).toFixed(1)
    } s** with every chunk searchable by
words and the graph; \`search-text\` right after answered in ${f(sphinx.searchMs)} ms and found
\`${sphinx.expected}\`: ${
      sphinx.found ? "yes" : "no"
    }. While the owner computed vectors (${sphinx.waitingAfter} of ${sphinx.chunks} chunks still waiting at the end), ${DURING_EMBEDDING} one-shot \`recall\`s took
p50 ${f(median(sphinx.recall))} ms, max ${f(Math.max(...sphinx.recall))} ms. A memory remembered
then, with ${sphinx.memory.waitingBefore} documents waiting for vectors, was found by meaning (\`search\`)
${(sphinx.memory.foundMs / 1000).toFixed(1)} s after \`remember\` returned.`;
    console.log(body);
    await writeSection("owner", await runInfo("owner"), body);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The latencies at 10,000 memories: cold starts, warm recalls and remembers, and the floor. */
async function warmOwnerAtTenThousand(dir: string) {
  await Deno.mkdir(dir, { recursive: true });
  const store = await newStore(join(dir, "store"));
  const { file, lines } = await tenThousandMemories(dir);
  await cairn(["--store", store, "import", file]);
  const run = (args: string[], via: "task" | "run" = "task") =>
    cairnThroughOwner(["--store", store, ...args], via);
  const questions = (await locomoQuestions()).slice(0, QUERIES);
  const recallOf = (q: { project: string; query: string }, via: "task" | "run") =>
    run(["recall", q.query, "--project", `${q.project}-0`, "--include", "memories"], via);

  const cold: number[] = [];
  const floor = { task: [] as number[], run: [] as number[] };
  for (let round = 0; round < COLD_STARTS; round++) {
    await run(["stop"]);
    cold.push((await recallOf(questions[round]!, "task")).ms);
    floor.task.push((await run(["--help"], "task")).ms);
    floor.run.push((await run(["--help"], "run")).ms);
  }
  await modelLoaded(store);
  const recall = { task: [] as number[], run: [] as number[] };
  const remember = { task: [] as number[], run: [] as number[] };
  for (const via of ["task", "run"] as const) {
    for (const question of questions) recall[via].push((await recallOf(question, via)).ms);
    for (let i = 0; i < REMEMBERS; i++) {
      const note = `Owner bench note ${i} (${via}): the build takes ${i} min`;
      remember[via].push((await run(["remember", note], via)).ms);
    }
  }
  await run(["stop"]);
  return { count: lines.length, cold, recall, remember, floor };
}

/** Waits until the owner reports its model loaded (the first commands answer by words meanwhile). */
async function modelLoaded(store: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const status = JSON.parse(
      (await cairnThroughOwner(["--store", store, "status", "--json"])).stdout,
    );
    if (status.model.state === "loaded") return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error("the owner's model did not load within 5 minutes");
}

/** `cairn index` of sphinx through a new owner, a word search at once, and recalls while vectors fill in. */
async function indexWhileEmbedding(dir: string) {
  const gitDir = await mirrorOf(SPHINX);
  const tree = join(dir, "sphinx");
  await writeTree(gitDir, SPHINX_AT, tree);
  const store = await newStore(join(dir, "store"));
  const run = (args: string[]) => cairnThroughOwner(["--store", store, ...args]);
  try {
    const indexed = await run(["index", tree, "--project", "sphinx", "--json"]);
    const report = JSON.parse(indexed.stdout) as { scanned: number; chunks: number };
    const expected = "sphinx/ext/autodoc/__init__.py";
    const search = await run([
      "search-text",
      "autodoc documenter import object",
      "--project",
      "sphinx",
    ]);
    const queries = [
      "how are cross references resolved",
      "where is the html builder's output written",
      "napoleon google style docstring parsing",
      "parallel build worker processes",
      "how does the i18n gettext builder collect messages",
    ];
    const recall: number[] = [];
    for (let i = 0; i < DURING_EMBEDDING; i++) {
      recall.push((await run(["recall", queries[i % queries.length]!, "--project", "sphinx"])).ms);
    }
    const waitingAfter = await waitingVectors(run);
    const memory = await memoryFoundByMeaning(run);
    return {
      files: report.scanned,
      chunks: report.chunks,
      indexMs: indexed.ms,
      searchMs: search.ms,
      expected,
      found: search.stdout.includes(expected),
      recall,
      waitingAfter,
      memory,
    };
  } finally {
    await run(["stop"]);
  }
}

type OwnerRun = (args: string[]) => ReturnType<typeof cairnThroughOwner>;

/** Documents the owner says still wait for a vector. */
async function waitingVectors(run: OwnerRun): Promise<number> {
  const status = JSON.parse((await run(["status", "--json"])).stdout);
  return status.vectors.lag.pending.reduce(
    (sum: number, p: { documents: number }) => sum + p.documents,
    0,
  );
}

/**
 * Remembers a memory while code waits for vectors; milliseconds until `search`
 * (vectors only, asked in words the memory does not hold) finds it.
 */
async function memoryFoundByMeaning(run: OwnerRun) {
  const waitingBefore = await waitingVectors(run);
  const note = "The documentation site is rebuilt and published by the nightly job at 02:00 UTC.";
  const remembered = await run(["remember", note, "--project", "sphinx", "--json"]);
  const { id } = (JSON.parse(remembered.stdout) as { memory: { id: string } }).memory;
  const started = performance.now();
  while (performance.now() - started < MEMORY_BEHIND_CODE_MS) {
    const found = await run([
      "search",
      "what time is the handbook deployed?",
      "--project",
      "sphinx",
      "--include",
      "memories",
      "--format",
      "json",
    ]);
    if (found.stdout.includes(id)) return { waitingBefore, foundMs: performance.now() - started };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the memory was not found by meaning within ${MEMORY_BEHIND_CODE_MS / 1000} s`);
}
