/**
 * Compares lexical engines on locomo-dev (each query asked in its own
 * project; `data.ts` says where the set lies): our BM25 (`projections/text_bm25.ts`), MiniSearch, FlexSearch
 * and Kùzu's built-in full-text search. Then measures the shipped projection
 * (`projections/text.ts`) at 10,000 synthetic memories: build, query latency,
 * the cost of one durable `remember`, and reopening.
 *
 * Run: `deno run -A bench/lexical_compare.ts`. The data is read at run time, never copied.
 */
import { Index } from "flexsearch";
import { Connection, Database, type PreparedStatement } from "kuzu";
import MiniSearch from "minisearch";
import { BlobStore } from "../events/blobs.ts";
import type { StoredEvent } from "../events/schema.ts";
import { TextProjection } from "../projections/text.ts";
import { Bm25Index, type Bm25Options } from "../projections/text_bm25.ts";
import { codeTokens, wordTokens } from "../text/tokens.ts";
import { benchFile } from "./data.ts";
import { hitAt, mean, ndcgAt, recallAt } from "./metrics.ts";

interface Memory {
  id: string;
  project: string;
  content: string;
}
interface Query {
  id: string;
  project: string;
  query: string;
  gold: string[];
}

/** One engine under test: built once over every memory, asked within a project. */
interface Engine {
  name: string;
  build(memories: readonly Memory[]): Promise<void> | void;
  search(query: string, project: string, k: number): Promise<string[]> | string[];
  close?(): Promise<void>;
}

async function readJsonl<T>(name: string): Promise<T[]> {
  const text = await Deno.readTextFile(await benchFile("locomo-dev", name));
  return text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as T);
}

function p50(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

// ---- engines ----

/** Our BM25; `perProject` builds one index per conversation (as the README's reference does). */
function ours(
  name: string,
  tokenize: (t: string) => string[],
  { perProject = false, ...options }: { perProject?: boolean } & Bm25Options = {},
): Engine {
  const indexes = new Map<string, Bm25Index<string>>();
  const of = (project: string) => {
    const key = perProject ? project : "";
    let index = indexes.get(key);
    if (!index) indexes.set(key, index = new Bm25Index<string>(tokenize, options));
    return index;
  };
  return {
    name,
    build(memories) {
      for (const m of memories) of(m.project).set(m.id, m.content, m.project);
    },
    search(query, project, k) {
      return of(project).search(query, k, (p) => p === project).map((hit) => hit.key);
    },
  };
}

function miniSearch(name: string, tokenize: (t: string) => string[], bm25plus: boolean): Engine {
  const index = new MiniSearch<Memory>({
    fields: ["content"],
    storeFields: ["project"],
    tokenize,
    processTerm: (term) => term,
    searchOptions: {
      tokenize,
      processTerm: (term) => term,
      bm25: bm25plus ? { k: 1.2, b: 0.7, d: 0.5 } : { k: 1.2, b: 0.75, d: 0 },
    },
  });
  return {
    name,
    build(memories) {
      index.addAll(memories);
    },
    search(query, project, k) {
      return index.search(query, { filter: (r) => r["project"] === project }).slice(0, k)
        .map((r) => String(r.id));
    },
  };
}

/** FlexSearch, one index per project (it has no scores to share), our tokens as its `encode`. */
function flexSearch(name: string, suggest: boolean): Engine {
  const indexes = new Map<string, Index>();
  return {
    name,
    build(memories) {
      for (const m of memories) {
        let index = indexes.get(m.project);
        if (!index) {
          indexes.set(
            m.project,
            index = new Index({ tokenize: "strict", encode: (text: string) => codeTokens(text) }),
          );
        }
        index.add(m.id, m.content);
      }
    },
    search(query, project, k) {
      const found = indexes.get(project)!.search(query, { limit: k, suggest });
      return (found as Array<string | number>).map(String);
    },
  };
}

/** Kùzu FTS over one node table, filtered by project after scoring. */
function kuzuFts(name: string, preTokenize: boolean): Engine {
  let db: Database;
  let conn: Connection;
  let dir: string;
  const text = (s: string) => preTokenize ? codeTokens(s, { stem: false }).join(" ") : s;
  const prepared = new Map<string, PreparedStatement>();
  const rows = (cypher: string, params?: Record<string, string | number>) =>
    run(cypher, params).catch((error) => {
      throw new Error(`${(error as Error).message} (in: ${cypher.slice(0, 50)}…)`);
    });
  const run = async (cypher: string, params?: Record<string, string | number>) => {
    let result;
    if (params) {
      let statement = prepared.get(cypher);
      if (!statement) prepared.set(cypher, statement = await conn.prepare(cypher));
      if (!statement.isSuccess()) throw new Error(statement.getErrorMessage());
      result = await conn.execute(statement, params);
    } else {
      result = await conn.query(cypher);
    }
    const list = Array.isArray(result) ? result : [result];
    const out: Record<string, unknown>[] = [];
    for (const r of list) {
      out.push(...await r.getAll());
      r.close();
    }
    return out;
  };
  return {
    name,
    async build(memories) {
      dir = await Deno.makeTempDir({ prefix: "cairn-kuzu-fts-" });
      db = new Database(`${dir}/db`);
      conn = new Connection(db);
      await rows("CREATE NODE TABLE M(id STRING PRIMARY KEY, project STRING, content STRING)");
      await rows("CALL CREATE_FTS_INDEX('M', 'm_fts', ['content'])");
      // Inserted after the index exists: Kùzu keeps the FTS index up to date.
      await rows("BEGIN TRANSACTION");
      for (const m of memories) {
        await rows("CREATE (:M {id: $id, project: $project, content: $content})", {
          id: m.id,
          project: m.project,
          content: text(m.content),
        });
      }
      await rows("COMMIT");
    },
    async search(query, project, k) {
      const found = await rows(
        "CALL QUERY_FTS_INDEX('M', 'm_fts', $q, conjunctive := false, K := 1.2, B := 0.75, top := 100000) " +
          "WITH node, score WHERE node.project = $p RETURN node.id AS id ORDER BY score DESC LIMIT " +
          k,
        { q: text(query), p: project },
      );
      return found.map((row) => String(row["id"]));
    },
    async close() {
      await conn.close();
      await db.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

// ---- quality ----

interface Row {
  engine: string;
  r1: number;
  r5: number;
  r10: number;
  hit1: number;
  hit10: number;
  ndcg10: number;
  buildMs: number;
  queryP50Ms: number;
}

async function evaluate(engine: Engine, memories: Memory[], queries: Query[]): Promise<Row> {
  const started = performance.now();
  await engine.build(memories);
  const buildMs = performance.now() - started;
  const scores = { r1: [], r5: [], r10: [], hit1: [], hit10: [], ndcg10: [] } as Record<
    string,
    number[]
  >;
  const latencies: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    const results = await engine.search(q.query, q.project, 10);
    latencies.push(performance.now() - t);
    scores["r1"]!.push(recallAt(results, q.gold, 1));
    scores["r5"]!.push(recallAt(results, q.gold, 5));
    scores["r10"]!.push(recallAt(results, q.gold, 10));
    scores["hit1"]!.push(hitAt(results, q.gold, 1));
    scores["hit10"]!.push(hitAt(results, q.gold, 10));
    scores["ndcg10"]!.push(ndcgAt(results, q.gold, 10));
  }
  await engine.close?.();
  const m = (key: string) => mean(scores[key]!);
  return {
    engine: engine.name,
    r1: m("r1"),
    r5: m("r5"),
    r10: m("r10"),
    hit1: m("hit1"),
    hit10: m("hit10"),
    ndcg10: m("ndcg10"),
    buildMs,
    queryP50Ms: p50(latencies),
  };
}

function table(rows: Row[]): string {
  const f = (n: number) => n.toFixed(3);
  const lines = [
    "| engine | R@1 | R@5 | R@10 | Hit@1 | Hit@10 | nDCG@10 | build ms | query p50 ms |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map((r) =>
      `| ${r.engine} | ${f(r.r1)} | ${f(r.r5)} | ${f(r.r10)} | ${f(r.hit1)} | ${f(r.hit10)} | ` +
      `${f(r.ndcg10)} | ${r.buildMs.toFixed(0)} | ${r.queryP50Ms.toFixed(2)} |`
    ),
  ];
  return lines.join("\n");
}

// ---- scale: the shipped projection at 10,000 synthetic memories ----

function remembered(seq: number, id: string, content: string, project: string): StoredEvent {
  return {
    seq,
    ts: new Date(0).toISOString(),
    type: "memory.remembered",
    v: 1,
    data: { id, project, kind: "note", content, tags: ["synthetic"] },
  };
}

async function scale(memories: Memory[], queries: Query[]): Promise<string[]> {
  const words = memories.flatMap((m) => m.content.split(/\s+/));
  const identifiers = ["getUserName", "src/auth/login.ts", "parse_config", "HttpClient", "retryMs"];
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const synthetic = Array.from({ length: 10_000 }, (_, i) => {
    const length = 10 + Math.floor(random() * 30);
    const text = Array.from({ length }, () => random() < 0.05 ? pick(identifiers) : pick(words));
    return remembered(i + 1, `s${i}`, text.join(" "), `p${i % 10}`);
  });
  await using tmp = await tempDir();
  const blobs = new BlobStore(`${tmp.path}/blobs`);
  const out: string[] = [];
  let projection = await TextProjection.open(`${tmp.path}/text`, blobs);
  let t = performance.now();
  for (let i = 0; i < synthetic.length; i += 512) {
    await projection.apply(synthetic.slice(i, i + 512));
  }
  out.push(
    `build 10,000 memories (20 durable batches of 512): ${(performance.now() - t).toFixed(0)} ms`,
  );
  const latencies = queries.slice(0, 300).map((q, i) => {
    const started = performance.now();
    projection.search(q.query, { sources: ["memory"], project: `p${i % 10}`, limit: 10 });
    return performance.now() - started;
  });
  out.push(`query p50 at 10,000 memories: ${p50(latencies).toFixed(2)} ms`);
  const single: number[] = [];
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    await projection.apply([
      remembered(20_000 + i, `new${i}`, "Decided to rename getUserName to fetchUser", "p1"),
    ]);
    single.push(performance.now() - started);
  }
  out.push(
    `one durable remember at 10,000 (journal append + fsync), p50: ${p50(single).toFixed(2)} ms`,
  );
  t = performance.now();
  await projection.compact();
  const snapshotMs = performance.now() - t;
  const size = (await Deno.stat(`${tmp.path}/text/snapshot.jsonl`)).size;
  out.push(
    `full snapshot at 10,000 (what a save-everything design pays per write): ${
      snapshotMs.toFixed(0)
    } ms, ${(size / 1024).toFixed(0)} KiB`,
  );
  const mini = new MiniSearch<{ id: string; content: string }>({ fields: ["content"] });
  mini.addAll(synthetic.map((e) => e.data as { id: string; content: string }));
  mini.add({ id: "extra", content: "Decided to rename getUserName to fetchUser" });
  t = performance.now();
  const json = JSON.stringify(mini);
  await Deno.writeTextFile(`${tmp.path}/mini.json`, json);
  const file = await Deno.open(`${tmp.path}/mini.json`, { write: true });
  await file.sync();
  file.close();
  out.push(
    `MiniSearch save after one add at 10,000 (JSON.stringify + write + fsync): ${
      (performance.now() - t).toFixed(0)
    } ms, ${(json.length / 1024).toFixed(0)} KiB`,
  );
  const digest = await projection.digest();
  await projection.close();
  t = performance.now();
  projection = await TextProjection.open(`${tmp.path}/text`, blobs);
  out.push(`reopen from snapshot at 10,050: ${(performance.now() - t).toFixed(0)} ms`);
  if (await projection.digest() !== digest) throw new Error("reopened index differs");
  await projection.close();
  return out;
}

async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "cairn-lexical-" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

if (import.meta.main) {
  const memories = await readJsonl<Memory>("memories.jsonl");
  const queries = await readJsonl<Query>("queries.jsonl");
  const unstemmed = (text: string) => codeTokens(text, { stem: false });
  const engines: Engine[] = [
    ours("BM25 (ours), word tokens, index per conversation", wordTokens, { perProject: true }),
    ours("BM25 (ours), word tokens, one index + project filter", wordTokens),
    ours("BM25 (ours), code tokens unstemmed", unstemmed),
    ours("BM25 (ours), code tokens", codeTokens),
    ours("BM25 (ours), code tokens unstemmed + coordination", unstemmed, { coord: true }),
    ours("BM25 (ours), code tokens + coordination", codeTokens, { coord: true }),
    ours("BM25+ (ours, δ 0.5), code tokens + coordination (shipped)", codeTokens, {
      coord: true,
      delta: 0.5,
    }),
    ours("BM25+ (ours, δ 0.5, b 0.7), code tokens + coordination", codeTokens, {
      coord: true,
      delta: 0.5,
      b: 0.7,
    }),
    miniSearch("MiniSearch, code tokens unstemmed, BM25 (k1 1.2, b 0.75)", unstemmed, false),
    miniSearch("MiniSearch, code tokens, BM25 (k1 1.2, b 0.75)", codeTokens, false),
    miniSearch("MiniSearch, code tokens, its default BM25+", codeTokens, true),
    flexSearch("FlexSearch, code tokens (AND)", false),
    flexSearch("FlexSearch, code tokens, suggest", true),
    kuzuFts("Kùzu FTS (its porter stemmer, English stop words)", false),
    kuzuFts("Kùzu FTS on pre-split code tokens", true),
  ];
  const rows: Row[] = [];
  const failures: string[] = [];
  for (const engine of engines) {
    try {
      rows.push(await evaluate(engine, memories, queries));
      console.error(`done: ${engine.name}`);
    } catch (error) {
      // Kùzu 0.11.3's FTS fails now and then with `unordered_map::at`: report it, go on.
      failures.push(`${engine.name}: ${(error as Error).message}`);
      await engine.close?.().catch(() => {});
    }
  }
  console.log(`locomo-dev: ${memories.length} memories, ${queries.length} queries\n`);
  console.log(table(rows));
  for (const failure of failures) console.log(`\nFAILED ${failure}`);
  console.log("\nThe shipped projection (projections/text.ts), 10,000 synthetic memories:");
  for (const line of await scale(memories, queries)) console.log(`- ${line}`);
}
