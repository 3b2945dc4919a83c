import { join } from "node:path";
/**
 * The cairn checkout the benchmarks run: this one, or CAIRN_BENCH_CHECKOUT (another
 * commit's worktree, to compare two versions on the same data in one run).
 */
const ROOT = Deno.env.get("CAIRN_BENCH_CHECKOUT") ?? new URL("../", import.meta.url).pathname;

/** Runs `deno task cairn ARGS` exactly as a user would; throws with stderr on failure. */
export async function cairn(args: string[]): Promise<string> {
  return (await run(Deno.execPath(), ["task", "--quiet", "cairn", ...args])).stdout;
}

/**
 * Runs `deno task cairn ARGS` under GNU time (`/usr/bin/time`) and returns its
 * output with the peak resident memory of the process tree, in KiB.
 */
export async function cairnMeasured(
  args: string[],
): Promise<{ stdout: string; peakRssKiB: number }> {
  const marker = "cairn-peak-rss-kib:";
  const { stdout, stderr } = await run("/usr/bin/time", [
    "-f",
    `${marker}%M`,
    Deno.execPath(),
    "task",
    "--quiet",
    "cairn",
    ...args,
  ]);
  const peak = stderr.split("\n").find((line) => line.startsWith(marker));
  return { stdout, peakRssKiB: Number(peak?.slice(marker.length) ?? 0) };
}

/**
 * Runs cairn ARGS as a user would, through the store's owner (started if none
 * runs), and returns its output and wall time in ms: as `deno task cairn`
 * (`via: "task"`), or as `deno run main.ts` (a process of its own, as a
 * compiled binary or an installed script runs).
 */
export async function cairnThroughOwner(
  args: string[],
  via: "task" | "run" = "task",
): Promise<{ stdout: string; ms: number }> {
  const started = performance.now();
  const command = via === "task"
    ? ["task", "--quiet", "cairn", ...args]
    : ["run", "--allow-all", "--quiet", "main.ts", ...args];
  const { stdout } = await run(Deno.execPath(), command, { CAIRN_NO_OWNER: "" });
  return { stdout, ms: performance.now() - started };
}

/**
 * Runs a command in cairn's checkout. The suites measure cairn opening its
 * store in the command's own process (`CAIRN_NO_OWNER=1`) unless `env` says
 * otherwise; the owner suite measures commands through an owner.
 */
async function run(
  command: string,
  args: string[],
  env: Record<string, string> = { CAIRN_NO_OWNER: "1" },
): Promise<{ stdout: string; stderr: string }> {
  const output = await new Deno.Command(command, {
    args,
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  if (!output.success) throw new Error(`cairn ${args.join(" ")} failed: ${stderr}`);
  return { stdout: new TextDecoder().decode(output.stdout), stderr };
}

/** Reads a JSONL file into objects. */
export async function readJsonl<T>(path: string): Promise<T[]> {
  const text = await Deno.readTextFile(path);
  return text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line) as T);
}

/** Writes `records` as JSONL, one line each (a `recall --batch` file, say). */
export async function writeJsonl(path: string, records: readonly unknown[]): Promise<void> {
  await Deno.writeTextFile(path, records.map((record) => JSON.stringify(record) + "\n").join(""));
}

/** One answer line of `recall --batch --format jsonl`. */
export interface BatchAnswer {
  id: string;
  elapsed_ms: number;
  results: Array<
    {
      type?: "memory" | "code" | "turn";
      id?: string;
      source_id?: string;
      file_path?: string;
      name?: string;
    }
  >;
  /** The markdown answer, when the batch line asked for it. */
  markdown?: string;
}

/** Runs `cairn recall --batch FILE --limit K --format jsonl` and parses its answer lines. */
export async function recallBatch(
  store: string,
  batch: string,
  limit = 10,
): Promise<BatchAnswer[]> {
  return parseAnswers(await cairn(recallBatchArgs(store, batch, limit)));
}

/** The arguments of `cairn --store STORE recall --batch BATCH --limit K --format jsonl`. */
export function recallBatchArgs(store: string, batch: string, limit = 10): string[] {
  return [
    "--store",
    store,
    "recall",
    "--batch",
    batch,
    "--limit",
    String(limit),
    "--format",
    "jsonl",
  ];
}

/** The answer lines `recall --batch --format jsonl` printed. */
export function parseAnswers(out: string): BatchAnswer[] {
  return out.split("\n").filter((line) => line.trim()).map((line) =>
    JSON.parse(line) as BatchAnswer
  );
}

/**
 * Creates a store folder for a benchmark; when CAIRN_BENCH_CONFIG names a
 * config.json (another embedding model, say), the store starts with a copy.
 */
export async function newStore(dir: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  const config = Deno.env.get("CAIRN_BENCH_CONFIG");
  if (config) await Deno.copyFile(config, join(dir, "config.json"));
  return dir;
}

/** Runs `work` with `vars` set in this process's environment, then puts them back as they were. */
export async function withEnv<T>(
  vars: Record<string, string>,
  work: () => Promise<T>,
): Promise<T> {
  const before = Object.fromEntries(Object.keys(vars).map((key) => [key, Deno.env.get(key)]));
  for (const [key, value] of Object.entries(vars)) Deno.env.set(key, value);
  try {
    return await work();
  } finally {
    for (const [key, value] of Object.entries(before)) {
      if (value === undefined) Deno.env.delete(key);
      else Deno.env.set(key, value);
    }
  }
}

/** What `cairn index --json` reports. */
export interface IndexReport {
  scanned: number;
  chunks: number;
  /** The index's own time before embeddings (scan, chunk, log, graph and text). */
  seconds: number;
}

/** Runs `cairn index TREE --project P --json` under GNU time for its wall time and peak memory. */
export async function timedIndex(
  store: string,
  tree: string,
  project: string,
): Promise<{ report: IndexReport; seconds: number; peakRssMiB: number }> {
  const started = performance.now();
  const out = await cairnMeasured([
    "--store",
    store,
    "index",
    tree,
    "--project",
    project,
    "--json",
  ]);
  const seconds = (performance.now() - started) / 1000;
  return {
    report: JSON.parse(out.stdout) as IndexReport,
    seconds,
    peakRssMiB: out.peakRssKiB / 1024,
  };
}
