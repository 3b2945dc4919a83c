/**
 * Indexing speed on one ~1,900-file repository (sphinx at v8.2.0, from the
 * `fetch` mirror): parse and chunk in-process (no store), then through the CLI
 * a full index with embeddings, a no-change re-index, and the move to v8.2.1
 * (20 files differ), each with its wall time and peak memory, and where the
 * full index's time goes.
 * @module
 */
import { join } from "node:path";
import { readSource, scan } from "../src/ingest/code/scan.ts";
import { chunkFile } from "../src/ingest/code/source_file.ts";
import { cairn, newStore, timedIndex } from "./cli.ts";
import { mirrorOf } from "./data.ts";
import { moveTree, writeTree } from "./git_tree.ts";
import { median, runInfo, writeSection } from "./report.ts";

const REPOSITORY = "sphinx-doc/sphinx";
const FROM = "v8.2.0";
const TO = "v8.2.1";
const ROUNDS = 3;

/** Runs the indexing speed suite and writes its section of bench/RESULTS.md. */
export async function benchIndexSpeed(): Promise<void> {
  const gitDir = await mirrorOf(REPOSITORY);
  const work = await Deno.makeTempDir({ prefix: "cairn-bench-index-" });
  try {
    const tree = join(work, "sphinx");
    await writeTree(gitDir, FROM, tree);
    const parse = await parseAndChunk(tree);
    const store = await newStore(join(work, "store"));
    const full = await timedIndex(store, tree, "sphinx");
    const startup = await timed(() => cairn(["--store", store, "status", "--json"]));
    const again = await timedIndex(store, tree, "sphinx");
    const change = await moveTree(gitDir, FROM, TO, tree);
    const move = await timedIndex(store, tree, "sphinx");

    const beforeEmbedding = full.report.seconds;
    const embedding = full.seconds - beforeEmbedding - startup;
    const row = (name: string, run: typeof full, what: string) =>
      `| ${name} | ${what} | ${run.seconds.toFixed(1)} | ${run.report.seconds.toFixed(1)} | ${
        run.peakRssMiB.toFixed(0)
      } |`;
    const body = `## Indexing speed (${REPOSITORY} ${FROM}, ${full.report.scanned} files)

Parse and chunk in-process (scan, read, tree-sitter or prose chunker; no store), median of
${ROUNDS}: **${
      parse.filesPerSecond.toFixed(0)
    } files/s** (${parse.files} files, ${parse.chunks} chunks in
${parse.seconds.toFixed(2)} s; of it ${parse.byLanguage}).

Through the CLI (\`cairn index\`, wall time of the process, peak resident memory by GNU time):

| run | files | wall s | of it before embeddings s | peak RSS MiB |
| --- | --- | ---: | ---: | ---: |
${
      row(
        "first index, embeddings included",
        full,
        `${full.report.scanned} (${full.report.chunks} chunks)`,
      )
    }
${row("no-change re-index", again, `${again.report.scanned}`)}
${row(`move ${FROM} → ${TO}`, move, `${change.written + change.removed} differ`)}

Where the first index's ${full.seconds.toFixed(0)} s go: process start and store open ${
      startup.toFixed(1)
    } s;
scan, parse and chunk about ${parse.seconds.toFixed(1)} s; writing the events and chunk texts and
the graph and lexical projections the rest of the ${beforeEmbedding.toFixed(1)} s before embeddings
(${(full.report.scanned / beforeEmbedding).toFixed(0)} files/s end to end); embedding
${full.report.chunks} chunks ${embedding.toFixed(0)} s (${
      (full.report.chunks / embedding).toFixed(1)
    } chunks/s).`;
    console.log(body);
    await writeSection("index-speed", await runInfo("index"), body);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

/** Scans, reads and chunks the tree `ROUNDS` times; the median round's figures. */
async function parseAndChunk(tree: string) {
  const rounds: Array<{ seconds: number; files: number; chunks: number; byLanguage: string }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    const { files } = await scan(tree);
    let chunks = 0;
    const perLanguage = new Map<string, number>();
    for (const file of files) {
      const source = await readSource(file);
      if ("reason" in source) continue;
      const began = performance.now();
      const chunked = await chunkFile(file.path, source.text);
      const language = "reason" in chunked ? "failed" : chunked.language;
      perLanguage.set(language, (perLanguage.get(language) ?? 0) + performance.now() - began);
      if (!("reason" in chunked)) chunks += chunked.chunks.length;
    }
    const byLanguage = [...perLanguage].sort((a, b) => b[1] - a[1]).slice(0, 3)
      .map(([language, ms]) => `${language} ${(ms / 1000).toFixed(2)} s`).join(", ");
    rounds.push({
      seconds: (performance.now() - started) / 1000,
      files: files.length,
      chunks,
      byLanguage,
    });
  }
  const middle = rounds.find((r) => r.seconds === median(rounds.map((r) => r.seconds)))!;
  return { ...middle, filesPerSecond: middle.files / middle.seconds };
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return (performance.now() - started) / 1000;
}
