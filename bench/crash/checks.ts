/**
 * Reading a store back: memories, graph facts, words-only searches, `verify` and the log's bytes.
 * @module
 */
import { join } from "node:path";
import { brief, cairn, cairnOk } from "./cairn.ts";
import { entityFact, observationFact, relationFact } from "./graph_model.ts";

const PAGE = 50;

/** A memory as `cairn list --json` prints it. */
export interface Memory {
  id: string;
  project: string | null;
  content: string;
  forgotten_at?: string;
  external_id?: string;
}

/** Every memory (forgotten ones too), through `cairn list --json` a page at a time. */
export async function listAll(store: string, project?: string): Promise<Memory[]> {
  const all: Memory[] = [];
  for (let offset = 0;; offset += PAGE) {
    const ran = await cairnOk(store, [
      "list",
      "--json",
      "--forgotten",
      "--limit",
      String(PAGE),
      "--offset",
      String(offset),
      ...(project ? ["--project", project] : []),
    ]);
    const page = JSON.parse(ran.out) as Memory[];
    all.push(...page);
    if (page.length < PAGE) return all;
  }
}

/** One answer of a search, as `cairn recall --format jsonl` prints it. */
export interface Hit {
  type: string;
  id: string;
  project?: string;
  name?: string;
  file_path?: string;
}

/** One words-only search of a `recall --batch` file. */
export interface Query {
  id: string;
  query: string;
  include: "code" | "sessions" | "memories";
}

/** Words-only searches, all in one `cairn recall --batch` process. */
export async function searchBatch(
  store: string,
  dir: string,
  queries: Query[],
): Promise<Map<string, Hit[]>> {
  const answers = new Map<string, Hit[]>();
  if (queries.length === 0) return answers;
  const file = join(dir, "queries.jsonl");
  await Deno.writeTextFile(
    file,
    queries.map((q) => JSON.stringify({ ...q, include: [q.include], mode: "lexical" })).join("\n") +
      "\n",
  );
  const ran = await cairnOk(store, [
    "recall",
    "--batch",
    file,
    "--limit",
    "5",
    "--format",
    "jsonl",
  ]);
  for (const line of ran.out.split("\n")) {
    if (!line.trim()) continue;
    const answer = JSON.parse(line) as { id: string; results: Hit[] };
    answers.set(answer.id, answer.results);
  }
  return answers;
}

/** The knowledge graph as a set of facts, through `cairn graph read --json`. */
export async function graphFacts(store: string): Promise<Set<string>> {
  const facts = new Set<string>();
  for (let cursor = 0;;) {
    const ran = await cairnOk(store, [
      "graph",
      "read",
      "--json",
      "--limit",
      "100",
      "--cursor",
      String(cursor),
    ]);
    const page = JSON.parse(ran.out) as {
      entities: Array<{ name: string; entityType: string; observations: string[] }>;
      relations: Array<{ from: string; to: string; relationType: string }>;
      more: number;
    };
    for (const entity of page.entities) {
      facts.add(entityFact(entity.name, entity.entityType));
      for (const text of entity.observations) facts.add(observationFact(entity.name, text));
    }
    for (const r of page.relations) facts.add(relationFact(r.from, r.relationType, r.to));
    if (page.more === 0 || page.entities.length === 0) return facts;
    cursor += page.entities.length;
  }
}

/** `cairn verify`: passed, and the problem lines it printed. */
export async function verify(store: string): Promise<{ ok: boolean; problems: string[] }> {
  const ran = await cairn(store, ["verify"]);
  const problems = ran.out.split("\n").filter((line) => line.startsWith("problem:"));
  if (ran.code !== 0 && problems.length === 0) {
    problems.push(`exit ${ran.timedOut ? "(timed out)" : ran.code}: ${brief(ran.err || ran.out)}`);
  }
  return { ok: ran.code === 0, problems };
}

/** The bytes of every file under `dir`, with its path. */
async function* filesUnder(dir: string): AsyncGenerator<[string, Uint8Array]> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* filesUnder(path);
    else if (entry.isFile) yield [path, await Deno.readFile(path)];
  }
}

/** The log files (under `<store>/log`) that still hold any of `texts`, text by text. */
export async function textsInLog(store: string, texts: string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (texts.length === 0) return found;
  const decoder = new TextDecoder("utf-8", { fatal: false });
  for await (const [path, bytes] of filesUnder(join(store, "log"))) {
    const content = decoder.decode(bytes);
    for (const text of texts) {
      if (content.includes(text)) found.set(text, [...(found.get(text) ?? []), path]);
    }
  }
  return found;
}
