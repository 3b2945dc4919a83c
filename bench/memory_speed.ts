import { join } from "node:path";
import { cairn, readJsonl, recallBatch, writeJsonl } from "./cli.ts";
import { benchFile } from "./data.ts";
import { median, percentile, runInfo, writeSection } from "./report.ts";

const TARGET = 10_000;

/**
 * Query latency at 10,000 memories and import throughput, through the CLI:
 * the LoCoMo turns copied into enough projects to pass 10,000 real-sounding
 * memories, then the LoCoMo questions as `search` (vector), `search_text`
 * (lexical) and `recall` (hybrid). Latency is the in-process time per query
 * that `recall --batch` reports (query embedding included).
 */
export async function benchMemorySpeed(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-bench-speed-" });
  try {
    const { file, lines, copies } = await tenThousandMemories(dir);
    const store = join(dir, "store");
    const started = performance.now();
    await cairn(["--store", store, "import", file]);
    const importSeconds = (performance.now() - started) / 1000;

    const questions = await locomoQuestions();
    const rows: string[] = [];
    for (
      const [label, mode] of [["search (vector)", "vector"], ["search_text (lexical)", "lexical"], [
        "recall (hybrid)",
        "hybrid",
      ]]
    ) {
      const batch = join(dir, `batch-${mode}.jsonl`);
      await writeJsonl(
        batch,
        questions.map((q) => ({
          id: q.id,
          query: q.query,
          project: `${q.project}-0`,
          include: ["memories"],
          mode,
        })),
      );
      const elapsed = (await recallBatch(store, batch)).map((line) => line.elapsed_ms);
      rows.push(
        `| ${label} | ${median(elapsed).toFixed(1)} | ${percentile(elapsed, 0.95).toFixed(1)} | ${
          percentile(elapsed, 0.99).toFixed(1)
        } |`,
      );
    }
    const body =
      `## Memories: import and query latency at ${lines.length.toLocaleString("en-US")} memories

| query (${questions.length} LoCoMo questions, top 10) | p50 ms | p95 ms | p99 ms |
| --- | ---: | ---: | ---: |
${rows.join("\n")}

Import through \`cairn import\`: ${lines.length} memories in ${importSeconds.toFixed(1)} s ` +
      `(${
        (lines.length / importSeconds).toFixed(0)
      } memories/s); the ${copies} copies of each turn ` +
      "share one embedding through the cache, so this is the warm-cache rate (the LoCoMo section's " +
      "import is the cold one).";
    console.log(body);
    await writeSection("memory-speed", await runInfo("speed"), body);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * The LoCoMo turns copied into enough projects to pass 10,000 memories,
 * written as an import file in `dir`: its path, its lines, and the copies.
 */
export async function tenThousandMemories(
  dir: string,
): Promise<{ file: string; lines: string[]; copies: number }> {
  const turns = await readJsonl<
    { id: string; project: string; content: string; ts: string; session: string }
  >(await benchFile("locomo-dev", "memories.jsonl"));
  const copies = Math.ceil(TARGET / turns.length);
  const file = join(dir, "memories.jsonl");
  const lines: string[] = [];
  for (let copy = 0; copy < copies; copy++) {
    for (const turn of turns) {
      lines.push(
        JSON.stringify({
          ...turn,
          id: `${copy}:${turn.id}`,
          project: `${turn.project}-${copy}`,
          session: `${copy}:${turn.session}`,
        }),
      );
    }
  }
  await Deno.writeTextFile(file, lines.join("\n"));
  return { file, lines, copies };
}

/** The LoCoMo dev questions, each about one conversation (a project). */
export async function locomoQuestions(): Promise<
  Array<{ id: string; project: string; query: string }>
> {
  return await readJsonl(await benchFile("locomo-dev", "queries.jsonl"));
}
