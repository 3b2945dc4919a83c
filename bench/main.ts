/**
 * `deno task bench [suite]`: runs benchmark suites and records their figures in bench/RESULTS.md.
 * Suites: quality (LoCoMo, sessions, mixed and SWE-bench Lite); locomo (memories alone); sessions
 * (agent transcripts); mixed (memories, sessions and psf/requests in one store, each question asked
 * over its own source and over all); mcp (tools/list and recall through MCP); code (SWE-bench Lite
 * alone, optionally only the repositories named after it, e.g. `psf/requests`); mined (the same on
 * issue #28's mined dev set, bench/mine_issues.ts, optionally only the repositories named); speed
 * (event log, embeddings, memory queries at 10k, MCP); embed (every embedding variant's chunks/s on
 * real code chunks against raw onnxruntime fp32, extra model folders in CAIRN_BENCH_MODELS; then
 * variants and searchable); variants (each embedding variant's ranking on LoCoMo dev and a fixed
 * 42-issue SWE-bench Lite subset, beside the shipped fp32 model's); searchable (sphinx searchable by meaning: when its own code, then every chunk that
 * gets one, has its vector, from an empty cache, on each variant or only the model folders named
 * after it); owner
 * (one-shot commands through the store's owner at 10k memories, and sphinx indexed while vectors
 * fill in); index (indexing speed on sphinx: parse and chunk, full index, no change, a 20-file
 * move); scale (one code project from 10k to 1M chunks; CAIRN_BENCH_SCALE_MAX lowers the top);
 * tokens; crash (SIGKILLs of every writing command: no acknowledged write lost, every store opens;
 * CAIRN_BENCH_CRASH_KILLS, CAIRN_BENCH_SEED); team (sync and shared vectors through a real
 * nats-server; skipped when none is installed); all (every suite but code and mined; variants and
 * searchable within embed).
 * @module
 */
import { benchCrash } from "./crash/main.ts";
import { benchEmbed } from "./embed.ts";
import { benchIndexSpeed } from "./index_speed.ts";
import { benchLocomo } from "./locomo.ts";
import { MissingBenchData } from "./data.ts";
import { benchLog } from "./log.ts";
import { benchMcp } from "./mcp.ts";
import { benchOwner } from "./owner.ts";
import { benchMemorySpeed } from "./memory_speed.ts";
import { benchMixed } from "./mixed.ts";
import { benchScale } from "./scale.ts";
import { benchSearchable } from "./searchable.ts";
import { benchSessions } from "./sessions.ts";
import { benchCodeSet, benchSwebench } from "./swebench.ts";
import { MINED_DEV } from "./code_sets.ts";
import { benchTokens } from "./tokens.ts";
import { benchVariants } from "./variants.ts";

const suites: Record<string, Array<() => Promise<void>>> = {
  quality: [benchLocomo, benchSessions, benchMixed, () => benchSwebench()],
  locomo: [benchLocomo],
  sessions: [benchSessions],
  mixed: [benchMixed],
  code: [() => benchSwebench(Deno.args.slice(1))],
  mined: [() => benchCodeSet(MINED_DEV, Deno.args.slice(1))],
  speed: [benchLog, () => benchEmbed(), benchMemorySpeed, benchMcp],
  embed: [() => benchEmbed(), benchVariants, benchSearchable],
  variants: [benchVariants],
  searchable: [() => benchSearchable(Deno.args.slice(1))],
  index: [benchIndexSpeed],
  mcp: [benchMcp],
  owner: [benchOwner],
  scale: [benchScale],
  tokens: [benchTokens],
  crash: [benchCrash],
  // Loaded only when run: it finds nats-server on import, and says so when there is none.
  team: [() => import("./team.ts").then((team) => team.benchTeam())],
};

const [requested = "all"] = Deno.args;
const chosen = requested === "all"
  ? Object.entries(suites).filter(([name]) =>
    !["code", "mined", "searchable", "variants"].includes(name)
  )
    .flatMap(([, runs]) => runs)
  : suites[requested];
if (!chosen) {
  console.error(
    `unknown suite "${requested}"; choose one of: ${Object.keys(suites).join(", ")}, all`,
  );
  Deno.exit(2);
}
let skipped = 0;
for (const run of chosen) {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof MissingBenchData)) throw error;
    console.error(`bench: skipped: ${error.message}`);
    skipped++;
  }
}
// Nothing measured is a failure; some suites skipped for want of data is said above.
if (skipped === chosen.length) Deno.exit(2);
