/**
 * How long a repository of 1,754 files to index (sphinx at v8.2.0, from the
 * `fetch` mirror) takes to become searchable by meaning: `cairn index` through a new
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
import { cairnThroughOwner, newStore } from "./cli.ts";
import { mirrorOf } from "./data.ts";
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

/** Runs the time-until-searchable suite and writes its section of bench/RESULTS.md. */
export async function benchSearchable(): Promise<void> {
  const gitDir = await mirrorOf(REPOSITORY);
  const work = await Deno.makeTempDir({ prefix: "cairn-bench-searchable-" });
  const cacheBefore = Deno.env.get("CAIRN_CACHE_DIR");
  try {
    // Every vector computed by the model: the user's cache is a new, empty one.
    Deno.env.set("CAIRN_CACHE_DIR", join(work, "cache"));
    const tree = join(work, "sphinx");
    await writeTree(gitDir, AT, tree);
    const ownCode = await ownCodeChunks(tree);
    const store = await newStore(join(work, "store"));
    const run = (args: string[]) => cairnThroughOwner(["--store", store, ...args]);
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    let report: { scanned: number; chunks: number };
    let indexed: number;
    let codeAt: number | undefined;
    let allAt: number | undefined;
    let vectors = 0;
    /** The first reading: what was held then, and when; the rate is counted from it. */
    let first: { held: number; at: number } | undefined;
    try {
      report = JSON.parse((await run(["index", tree, "--project", "sphinx", "--json"])).stdout);
      indexed = seconds();
      while (allAt === undefined) {
        const status = JSON.parse((await run(["status", "--json"])).stdout) as VectorStatus;
        const { held, lag } = status.vectors;
        const waiting = lag.pending.reduce((sum, p) => sum + p.documents, 0);
        const ownWaiting = lag.pending.some((p) => p.source === "code" && !p.lowered);
        vectors = held.code + waiting;
        first ??= { held: held.code, at: seconds() };
        const loaded = status.model.state === "loaded";
        if (codeAt === undefined && !ownWaiting && loaded) codeAt = seconds();
        if (waiting === 0 && loaded) allAt = seconds();
        else await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    } finally {
      await run(["stop"]);
    }
    const f = (n: number | undefined) => n === undefined ? "–" : n.toFixed(0);
    const body = `## Searchable by meaning (${REPOSITORY} ${AT})

\`cairn index\` of ${report.scanned} files (${report.chunks} chunks) through a new owner, an empty
user cache (\`CAIRN_CACHE_DIR\` a new folder), the owner's status read every ${POLL_MS / 1000} s;
seconds from the command's start, the owner's start and model load included. ${vectors} chunks get
a vector (a table's first chunk only), ${ownCode} of them the project's own code (not tests, docs,
changelogs, tooling, examples or data).

| moment | s |
| --- | ---: |
| the index returns: every chunk searchable by words and the graph | ${f(indexed)} |
| the project's own code searchable by meaning | ${f(codeAt)} |
| every chunk with a vector searchable by meaning | ${f(allAt)} |

${
      ((vectors - first!.held) / (allAt - first!.at)).toFixed(1)
    } chunks/s from the first status read to the last vector.`;
    console.log(body);
    await writeSection("searchable", await runInfo("searchable"), body);
  } finally {
    if (cacheBefore === undefined) Deno.env.delete("CAIRN_CACHE_DIR");
    else Deno.env.set("CAIRN_CACHE_DIR", cacheBefore);
    await Deno.remove(work, { recursive: true });
  }
}

/** Chunks of the files under `tree` that the vectors do not put behind the project's own code. */
async function ownCodeChunks(tree: string): Promise<number> {
  let chunks = 0;
  for await (const file of chunkedFiles(tree)) {
    if (!waitsBehindCode(file.path)) chunks += file.chunks.length;
  }
  return chunks;
}
