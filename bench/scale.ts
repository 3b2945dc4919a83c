/**
 * How cairn grows: one code project filled with real source files (the
 * JavaScript and TypeScript of this checkout's node_modules, copied as many
 * times as needed) to 10k, 100k and 1M chunks, measuring at each size the
 * index time of the step, the store's size on disk, the peak memory of
 * indexing and of answering, recall latency over all the chunks, and a full
 * `cairn replay`. Vectors come from a feature-hashing stand-in served on
 * 127.0.0.1 (bench/stand_in_embedder.ts), so the model's cost is left out;
 * the shipped model's query embedding is timed on the same queries beside it.
 * CAIRN_BENCH_SCALE_MAX lowers the largest size (default 1,000,000).
 * @module
 */
import { dirname, join, relative } from "node:path";
import { sha256Hex } from "../events/blobs.ts";
import { cairnMeasured, parseAnswers, recallBatch, recallBatchArgs } from "./cli.ts";
import { median, percentile, runInfo, writeSection } from "./report.ts";
import { STAND_IN_DIMS, startStandInEmbedder } from "./stand_in_embedder.ts";

const SIZES = [10_000, 100_000, 1_000_000];
const NODE_MODULES = new URL("../node_modules/", import.meta.url).pathname;
const SOURCE = /\.(js|mjs|cjs|ts|mts|cts)$/;
const PROJECT = "scale";
const CALIBRATION_FILES = 300;

/** Questions an agent asks of a JavaScript code base. */
const QUERIES = [
  "parse command line arguments",
  "retry a request with exponential backoff",
  "read a file and decode it as UTF-8",
  "escape a string for a regular expression",
  "deep merge two objects",
  "validate an email address",
  "convert camelCase to snake_case",
  "where are HTTP headers normalised",
  "compute a sha256 hash of a buffer",
  "debounce a function call",
  "walk a directory tree recursively",
  "format a date as ISO 8601",
  "throw an error when the argument is not a string",
  "compare two semantic version numbers",
  "stream a response body in chunks",
  "parse a JSON schema and report validation errors",
  "load a WebAssembly module",
  "tokenize source code into identifiers",
  "cache the result of an expensive function",
  "handle the abort signal of a fetch",
  "create a temporary directory",
  "spawn a child process and collect its output",
  "register an event listener once",
  "serialize a map to JSON",
  "glob pattern matching of file paths",
  "base64 encode bytes",
  "check whether a path is inside another path",
  "measure elapsed time with a high resolution clock",
  "lazy initialisation of a singleton",
  "pretty print an error with its stack trace",
];

interface Step {
  chunks: number;
  files: number;
  indexSeconds: number;
  addedChunks: number;
  indexPeakMiB: number;
  diskMiB: number;
  recall: number[];
  recallPeakMiB: number;
  replaySeconds: number;
}

/** Runs the scale suite and writes its section of bench/RESULTS.md. */
export async function benchScale(): Promise<void> {
  const max = Number(Deno.env.get("CAIRN_BENCH_SCALE_MAX") ?? SIZES.at(-1));
  const dir = await Deno.makeTempDir({ prefix: "cairn-bench-scale-" });
  try {
    await using embedder = startStandInEmbedder();
    const store = join(dir, "store");
    await Deno.mkdir(store);
    await Deno.writeTextFile(
      join(store, "config.json"),
      JSON.stringify({
        embedder: {
          kind: "http",
          base_url: embedder.baseUrl,
          model: "stand-in",
          dims: STAND_IN_DIMS,
        },
      }),
    );
    const corpus = await sourceFiles();
    const tree = join(dir, "tree");
    const filler = new TreeFiller(corpus, tree);
    const steps: Step[] = [];
    let chunks = 0;
    for (const size of SIZES.filter((s) => s <= max)) {
      let indexSeconds = 0;
      let indexPeakMiB = 0;
      const before = chunks;
      while (chunks < size) {
        // The first files tell how many chunks a file gives; then each round aims a little
        // short of the size, so that the size is passed by a few percent at most.
        const wanted = filler.written === 0
          ? CALIBRATION_FILES
          : Math.ceil((0.9 * (size - chunks)) / (chunks / filler.written));
        await filler.add(Math.max(50, wanted));
        const indexed = await timedIndex(store, tree);
        if (indexed.chunks === 0) {
          throw new Error(`scale: the files added to ${tree} gave no chunks`);
        }
        chunks += indexed.chunks;
        indexSeconds += indexed.seconds;
        indexPeakMiB = Math.max(indexPeakMiB, indexed.peakMiB);
      }
      const asked = await askAll(store, dir);
      // The store as its user has it after indexing and asking (a replay rebuilds it otherwise).
      const disk = await diskMiB(store);
      // A replay of a million chunks takes half an hour: what came before it is shown first.
      console.error(
        `scale: ${chunks} chunks indexed (${indexSeconds.toFixed(0)} s, peak ${
          indexPeakMiB.toFixed(0)
        } MiB, disk ${disk.toFixed(0)} MiB); recall ms ${
          JSON.stringify(asked.elapsed.map((ms) => Math.round(ms)))
        }, peak ${asked.peakMiB.toFixed(0)} MiB; replaying`,
      );
      const replay = replayed((await timed(["--store", store, "replay"])).stdout);
      steps.push({
        chunks,
        files: filler.written,
        indexSeconds,
        addedChunks: chunks - before,
        indexPeakMiB,
        diskMiB: disk,
        recall: asked.elapsed,
        recallPeakMiB: asked.peakMiB,
        replaySeconds: replay.seconds,
      });
      // Each size's figures as soon as they are in: a run stopped before the next size keeps them.
      console.error(`scale: ${chunks} chunks measured: ${JSON.stringify(steps.at(-1))}`);
    }
    const modelQuery = await modelQueryLatency(dir);
    const body = report(steps, corpus.length, modelQuery);
    console.log(body);
    await writeSection("scale", await runInfo("scale"), body);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The JavaScript and TypeScript sources of node_modules (minified and huge files left out). */
async function sourceFiles(): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    for await (const entry of Deno.readDir(folder)) {
      const path = join(folder, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile && SOURCE.test(entry.name) && !entry.name.includes(".min.")) {
        const { size } = await Deno.stat(path);
        if (size > 200 && size < 256 * 1024) found.push(path);
      }
    }
  };
  await walk(NODE_MODULES);
  // A fixed shuffle: packages mixed, so any prefix of the corpus is like the whole.
  const keyed = await Promise.all(
    found.map(async (path) => ({ path, key: await sha256Hex(path) })),
  );
  return keyed.sort((a, b) => (a.key < b.key ? -1 : 1)).map((entry) => entry.path);
}

/**
 * Writes corpus files into the tree, round after round under `copy-N/` (the
 * hidden `.deno/` and the dependency folders' names dropped, so the scan does
 * not skip them).
 */
class TreeFiller {
  written = 0;
  constructor(private readonly corpus: string[], private readonly tree: string) {}

  async add(count: number): Promise<void> {
    for (let i = 0; i < count; i++, this.written++) {
      const source = this.corpus[this.written % this.corpus.length]!;
      const copy = Math.floor(this.written / this.corpus.length);
      const target = join(
        this.tree,
        `copy-${copy}`,
        relative(NODE_MODULES, source).replace(/^\.deno\//, "").replaceAll("node_modules", "deps"),
      );
      await Deno.mkdir(dirname(target), { recursive: true });
      await Deno.copyFile(source, target);
    }
  }
}

async function timedIndex(
  store: string,
  tree: string,
): Promise<{ chunks: number; seconds: number; peakMiB: number }> {
  const { stdout, seconds, peakMiB } = await timed([
    "--store",
    store,
    "index",
    tree,
    "--project",
    PROJECT,
    "--json",
  ]);
  return { chunks: (JSON.parse(stdout) as { chunks: number }).chunks, seconds, peakMiB };
}

async function timed(
  args: string[],
): Promise<{ stdout: string; seconds: number; peakMiB: number }> {
  const started = performance.now();
  const { stdout, peakRssKiB } = await cairnMeasured(args);
  return { stdout, seconds: (performance.now() - started) / 1000, peakMiB: peakRssKiB / 1024 };
}

/**
 * Every query as hybrid recall over the project's code, three times:
 * in-process times per query (after the first round, the stand-in's query
 * vectors come from the process's memory of recent queries).
 */
async function askAll(store: string, dir: string): Promise<{ elapsed: number[]; peakMiB: number }> {
  const batch = join(dir, "scale-batch.jsonl");
  const lines = [0, 1, 2].flatMap((round) =>
    QUERIES.map((query, i) =>
      JSON.stringify({ id: `${round}:${i}`, query, project: PROJECT, include: ["code"] })
    )
  );
  await Deno.writeTextFile(batch, lines.join("\n"));
  const { stdout, peakMiB } = await timed(recallBatchArgs(store, batch));
  return { elapsed: parseAnswers(stdout).map((answer) => answer.elapsed_ms), peakMiB };
}

/**
 * The shipped model's share of a recall: the same queries asked once each of
 * an empty store with the default model, where embedding the query is nearly
 * all the work (asked again, a query's vector would come from memory).
 */
async function modelQueryLatency(dir: string): Promise<number[]> {
  const store = join(dir, "model-store");
  await Deno.mkdir(store);
  const batch = join(dir, "model-batch.jsonl");
  await Deno.writeTextFile(
    batch,
    QUERIES.map((query, i) => JSON.stringify({ id: `${i}`, query, mode: "vector" })).join("\n"),
  );
  return (await recallBatch(store, batch)).map((answer) => answer.elapsed_ms);
}

/** The seconds of `replayed N events into … in S s`, as `cairn replay` says it. */
function replayed(line: string): { seconds: number } {
  const match = line.match(/replayed \d+ events .* in ([\d.]+) s/);
  if (!match) throw new Error(`unexpected replay output: ${line}`);
  return { seconds: Number(match[1]) };
}

async function diskMiB(path: string): Promise<number> {
  const output = await new Deno.Command("du", { args: ["-sk", path], stdout: "piped" }).output();
  return Number(new TextDecoder().decode(output.stdout).split("\t")[0]) / 1024;
}

function report(steps: Step[], corpusFiles: number, modelQuery: number[]): string {
  const f = (n: number, digits = 0) =>
    n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const rows = steps.map((s) =>
    `| ${f(s.chunks)} | ${f(s.files)} | ${f(s.indexSeconds)} | ${
      f(s.addedChunks / s.indexSeconds)
    } | ` +
    `${f(s.indexPeakMiB)} | ${f(s.diskMiB)} | ${f((s.diskMiB / s.chunks) * 100_000)} | ` +
    `${f(median(s.recall), 1)} | ${f(percentile(s.recall, 0.95), 1)} | ${
      f(percentile(s.recall, 0.99), 1)
    } | ` +
    `${f(s.recallPeakMiB)} | ${f(s.replaySeconds)} | ${f(s.chunks / s.replaySeconds)} |`
  );
  return `## Scale: one code project from 10k to ${f(steps.at(-1)?.chunks ?? 0)} chunks

${f(corpusFiles)} JavaScript and TypeScript files of node_modules, copied into
one project as many times as needed and indexed step by step with
\`cairn index\` (incremental: each step adds files). Vectors come from a
feature-hashing stand-in on 127.0.0.1, not the model: these figures leave the
model out (the speed and code suites time the model: at their rates a million
chunks would take many hours on this machine). Recall is hybrid over all of the project's code,
${QUERIES.length} questions asked three times, in-process time per query
(\`recall --batch\`). Peak memory is the process's resident set (GNU time).

| chunks | files | step index s | chunks/s | index peak MiB | disk MiB | disk MiB per 100k chunks | recall p50 ms | p95 ms | p99 ms | recall peak MiB | replay s | replay chunks/s |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join("\n")}

Embedding the query with the shipped model (the same questions, vector mode on
an empty store): p50 ${f(median(modelQuery), 1)} ms, p95 ${
    f(percentile(modelQuery, 0.95), 1)
  } ms; a recall with the model costs about that much more than the rows above.`;
}
