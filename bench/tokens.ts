import { join } from "node:path";
import { TextTokenizer } from "../src/embed/tokenizer.ts";
import { shippedModelDir } from "../src/embed/load.ts";
import { DEFAULT_RESULTS } from "../src/recall/recall.ts";
import { cairn, readJsonl } from "./cli.ts";
import { benchFile } from "./data.ts";
import { median, percentile, runInfo, writeSection } from "./report.ts";

const QUESTIONS = 40;

/**
 * How many tokens a recall answer costs the agent: the answers to the first
 * LoCoMo questions, by default, top 5 and top 10, in markdown and in JSON, counted with
 * the default model's tokenizer (a WordPiece count; an agent's own tokenizer
 * differs by a few percent).
 */
export async function benchTokens(): Promise<void> {
  const store = await Deno.makeTempDir({ prefix: "cairn-bench-tokens-" });
  try {
    await cairn(["--store", store, "import", await benchFile("locomo-dev", "memories.jsonl")]);
    const questions = (await readJsonl<{ project: string; query: string }>(
      await benchFile("locomo-dev", "queries.jsonl"),
    ))
      .slice(0, QUESTIONS);
    const tokenizer = await TextTokenizer.load(
      join(shippedModelDir(), "tokenizer.json"),
      Number.MAX_SAFE_INTEGER,
    );
    const rows: string[] = [];
    for (const limit of [undefined, 5, 10]) {
      for (const format of ["markdown", "json"]) {
        const counts: number[] = [];
        for (const q of questions) {
          const answer = await cairn([
            "--store",
            store,
            "recall",
            q.query,
            "--project",
            q.project,
            "--include",
            "memories",
            ...(limit === undefined ? [] : ["--limit", String(limit)]),
            "--format",
            format,
          ]);
          counts.push(tokenizer.encode(answer).ids.length - 2);
        }
        rows.push(
          `| ${
            limit === undefined ? `default (${DEFAULT_RESULTS})` : `top ${limit}`
          } | ${format} | ${median(counts)} | ${percentile(counts, 0.95)} |`,
        );
      }
    }
    const body = `## Tokens per recall answer (${QUESTIONS} LoCoMo questions)

| results | format | median tokens | p95 tokens |
| --- | --- | ---: | ---: |
${rows.join("\n")}`;
    console.log(body);
    await writeSection("tokens", await runInfo("tokens"), body);
  } finally {
    await Deno.remove(store, { recursive: true });
  }
}
