/**
 * How long a repository of 1,754 files to index (sphinx at v8.2.0, from the
 * `fetch` mirror) takes to become searchable by meaning, on each embedding
 * variant (bench/model_folders.ts): `cairn index` through a new
 * owner with an empty embedding cache, then the owner's status read every few
 * seconds while it computes the vectors. Three moments: the index returns
 * (every chunk searchable by words and the graph), the project's own code
 * has its vectors (the status counts the chunks of the files recall lowers
 * apart), and every vector is there.
 * @module
 */
import { join } from "node:path";
import { waitsBehindCode } from "../src/service/vector_priority.ts";
import { chunkedFiles } from "./chunked_files.ts";
import { cairnThroughOwner, newStore, withEnv } from "./cli.ts";
import { mirrorOf } from "./data.ts";
import { benchModelFolders, variantConfig } from "./model_folders.ts";
import { writeTree } from "./git_tree.ts";
import { runInfo, writeSection } from "./report.ts";

const REPOSITORY = "sphinx-doc/sphinx";
const AT = "v8.2.0";
const POLL_MS = 5000;

/** What the owner's `status --json` tells of the vectors. */
interface VectorStatus {
  model: { state: string };
  vectors: {
    held: { code: number };
    lag: { pending: Array<{ source: string; documents: number; lowered?: true }> };
  };
}

/** When one variant's sphinx became searchable, in seconds from `cairn index`'s start. */
interface Timing {
  id: string;
  scanned: number;
  chunks: number;
  /** Chunks that get a vector. */
  vectors: number;
  indexed: number;
  codeAt: number;
  allAt: number;
  /** Vectors a second from the first status read to the last vector. */
  rate: number;
}

/**
 * Runs the time-until-searchable suite for every embedding variant, or only
 * the model folders in `only`, and writes its section.
 */
export async function benchSearchable(only: string[] = []): Promise<void> {
  const gitDir = await mirrorOf(REPOSITORY);
  const work = await Deno.makeTempDir({ prefix: "cairn-bench-searchable-" });
  try {
    const tree = join(work, "sphinx");
    await writeTree(gitDir, AT, tree);
    const ownCode = await ownCodeChunks(tree);
    const timings: Timing[] = [];
    for (const dir of only.length ? only : await benchModelFolders()) {
      const { id, folder, config } = await variantConfig(join(work, "variants"), dir);
      // Every vector computed by the model: the user's cache is a new, empty one.
      const env = { CAIRN_CACHE_DIR: join(folder, "cache"), CAIRN_BENCH_CONFIG: config };
      const timing = await withEnv(env, () => timeUntilSearchable(tree, join(folder, "store")));
      timings.push({ id, ...timing });
      await Deno.remove(folder, { recursive: true });
    }
    const body = report(timings, ownCode);
    console.log(body);
    await writeSection("searchable", await runInfo("searchable"), body);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

/** Indexes `tree` into a new store through a new owner and watches its vectors fill in. */
async function timeUntilSearchable(tree: string, storeDir: string): Promise<Omit<Timing, "id">> {
  const store = await newStore(storeDir);
  const run = (args: string[]) => cairnThroughOwner(["--store", store, ...args]);
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  let codeAt: number | undefined;
  /** The first reading: what was held then, and when; the rate is counted from it. */
  let first: { held: number; at: number } | undefined;
  try {
    const report = JSON.parse((await run(["index", tree, "--project", "sphinx", "--json"])).stdout);
    const indexed = seconds();
    for (;;) {
      const status = JSON.parse((await run(["status", "--json"])).stdout) as VectorStatus;
      const { held, lag } = status.vectors;
      const waiting = lag.pending.reduce((sum, p) => sum + p.documents, 0);
      const ownWaiting = lag.pending.some((p) => p.source === "code" && !p.lowered);
      first ??= { held: held.code, at: seconds() };
      const loaded = status.model.state === "loaded";
      if (codeAt === undefined && !ownWaiting && loaded) codeAt = seconds();
      if (waiting === 0 && loaded) {
        const allAt = seconds();
        const vectors = held.code;
        const rate = (vectors - first.held) / (allAt - first.at);
        return {
          scanned: report.scanned,
          chunks: report.chunks,
          vectors,
          indexed,
          codeAt: codeAt!,
          allAt,
          rate,
        };
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    await run(["stop"]);
  }
}

function report(timings: Timing[], ownCode: number): string {
  const [{ scanned, chunks, vectors }] = timings as [Timing];
  const f = (n: number) => n.toFixed(0);
  return `## Searchable by meaning (${REPOSITORY} ${AT})

\`cairn index\` of ${scanned} files (${chunks} chunks) through a new owner, an empty user cache
(\`CAIRN_CACHE_DIR\` a new folder), the owner's status read every ${POLL_MS / 1000} s; seconds from
the command's start, the owner's start and model load included, one run per embedding variant.
${vectors} chunks get a vector (a table's first chunk only), ${ownCode} of them the project's own code
(not tests, docs, changelogs, tooling, examples or data). Searchable by words and the graph: when the
index returns.

| variant | the index returns s | own code searchable by meaning s | every vector s | chunks/s after the index |
| --- | ---: | ---: | ---: | ---: |
${
    timings.map((t) =>
      `| ${t.id} | ${f(t.indexed)} | ${f(t.codeAt)} | ${f(t.allAt)} | ${t.rate.toFixed(1)} |`
    ).join("\n")
  }`;
}

/** Chunks of the files under `tree` that the vectors do not put behind the project's own code. */
async function ownCodeChunks(tree: string): Promise<number> {
  let chunks = 0;
  for await (const file of chunkedFiles(tree)) {
    if (!waitsBehindCode(file.path)) chunks += file.chunks.length;
  }
  return chunks;
}
