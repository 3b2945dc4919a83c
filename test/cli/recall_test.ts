import assert from "node:assert/strict";
import { join } from "node:path";
import { DEFAULT_WEIGHTS } from "../../src/recall/fuse.ts";
import { exists } from "../../events/durable_fs.ts";
import { tempDir } from "../helpers.ts";
import { cliHere } from "./in_process.ts";

const MEMORIES = [
  {
    id: "t:1",
    project: "team",
    content: "We deploy the billing service with blue-green releases.",
  },
  { id: "t:2", project: "team", content: "Postgres backups run nightly at 02:00 UTC." },
  { id: "t:3", project: "team", content: "The frontend uses React with Vite." },
  { id: "o:1", project: "other", content: "Postgres backups are weekly here." },
];

async function storeWithMemories(dir: string): Promise<string[]> {
  const file = join(dir, "memories.jsonl");
  await Deno.writeTextFile(file, MEMORIES.map((m) => JSON.stringify(m)).join("\n"));
  const store = ["--store", join(dir, "store")];
  const imported = await cliHere([...store, "import", file]);
  assert.equal(imported.code, 0, imported.stderr);
  return store;
}

Deno.test("cairn recall --batch answers each line in the benchmark JSONL format, within the line's project", async () => {
  await using tmp = await tempDir();
  const store = await storeWithMemories(tmp.path);
  const batch = join(tmp.path, "batch.jsonl");
  await Deno.writeTextFile(
    batch,
    [
      {
        id: "q1",
        query: "when do postgres backups run?",
        project: "team",
        include: ["memories"],
        mode: "lexical",
      },
      { id: "q2", query: "postgres backups", project: "other", mode: "lexical" },
    ].map((line) => JSON.stringify(line)).join("\n"),
  );
  const result = await cliHere([
    ...store,
    "recall",
    "--batch",
    batch,
    "--limit",
    "2",
    "--format",
    "jsonl",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(lines.map((line) => line.id), ["q1", "q2"]);
  assert.equal(lines[0].results[0].source_id, "t:2");
  assert.equal(lines[0].results[0].type, "memory");
  assert.equal(lines[0].results[0].project, "team");
  assert.ok(typeof lines[0].elapsed_ms === "number");
  assert.deepEqual(lines[1].results.map((r: { source_id: string }) => r.source_id), ["o:1"]);
});

Deno.test("cairn recall prints compact markdown, says what is missing, and refuses bad input", async () => {
  await using tmp = await tempDir();
  const store = await storeWithMemories(tmp.path);
  const answer = await cliHere([
    ...store,
    "recall",
    "how",
    "do",
    "we",
    "deploy",
    "billing?",
    "--project",
    "team",
  ]);
  assert.equal(answer.code, 0, answer.stderr);
  // One order, each result labelled with its source, date and the handle that opens it.
  assert.match(
    answer.stdout,
    /^1\. \[memory note \d{4}-\d{2}-\d{2} mem_[0-9a-z]+\] We deploy the billing service/,
  );
  const long = await cliHere([...store, "recall", "x".repeat(70_000)]);
  assert.equal(long.code, 2, "a usage error");
  assert.match(long.stderr, /limit is 65536/);
  const badBatch = join(tmp.path, "bad.jsonl");
  await Deno.writeTextFile(badBatch, `{"id":"a","query":"ok"}\n{"id":"b"}\n`);
  const refused = await cliHere([...store, "recall", "--batch", badBatch, "--format", "jsonl"]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /bad\.jsonl:2: query/);
  await Deno.writeTextFile(badBatch, `{"id":"a","query":"ok","limit":2}\n`);
  const unknownKey = await cliHere([...store, "recall", "--batch", badBatch, "--format", "jsonl"]);
  assert.equal(unknownKey.code, 1);
  assert.match(unknownKey.stderr, /bad\.jsonl:1: .*"limit"/);
  const nowhere = await cliHere(["--store", join(tmp.path, "empty"), "recall", "anything"]);
  assert.equal(nowhere.code, 1);
  assert.match(nowhere.stderr, /^cairn recall: no store at .*empty: nothing was remembered/);
  await Deno.mkdir(join(tmp.path, "empty"));
  const empty = await cliHere(["--store", join(tmp.path, "empty"), "recall", "anything"]);
  assert.equal(empty.code, 0);
  assert.match(empty.stdout, /Nothing found\./);
});

Deno.test("cairn recall refuses a bad --mode, --format or date as a usage error, before opening the store", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "never-opened");
  const refusals: Array<[string[], RegExp]> = [
    [["--mode", "foo"], /--mode is one of hybrid, vector or lexical, not "foo"/],
    [["--format", "xml"], /--format is one of markdown, json or debug, not "xml"/],
    [["--format", "jsonl"], /not "jsonl" \(jsonl goes with --batch\)/],
    [["--as-of", "garbage"], /--as-of takes an ISO 8601 date, not "garbage"/],
    [["--batch", join(tmp.path, "q.jsonl"), "--format", "markdown"], /--batch answers in jsonl/],
    [["--weights", "vector=2,foo=1"], /no signal is named "foo"; the signals are vector, lexical,/],
    [["--weights", "vector=much"], /--weights looks like vector=0\.2,.*, not "vector=much"/],
  ];
  for (const [args, message] of refusals) {
    const refused = await cliHere(["--store", store, "recall", "deploys", ...args]);
    assert.equal(refused.code, 2, `${args.join(" ")}: ${refused.stderr}`);
    assert.match(refused.stderr, message);
    assert.match(refused.stderr, /usage: cairn recall/);
  }
  assert.equal(await exists(store), false, "nothing ran");
});

Deno.test("cairn recall --help shows the default weights recall uses", async () => {
  const help = await cliHere(["recall", "--help"]);
  assert.equal(help.code, 0);
  const weights = Object.entries(DEFAULT_WEIGHTS).map(([signal, w]) => `${signal}=${w}`).join(",");
  assert.ok(help.stdout.includes(`[--weights ${weights}]`), help.stdout);
});

Deno.test("cairn recall --as-of finds what was known then, by its words then: forgotten and reworded since", async () => {
  await using tmp = await tempDir();
  const run = (...args: string[]) => cliHere(["--store", tmp.path, ...args]);
  const idOf = async (text: string) => {
    const stored = await run("remember", text, "--json");
    assert.equal(stored.code, 0, stored.stderr);
    return JSON.parse(stored.stdout).memory.id as string;
  };
  const key = await idOf("The staging deploy key is kept in vault under secret/staging");
  const day = await idOf("Deploys happen on Fridays after the standup");
  await idOf("The office plants are watered on Mondays");
  const then = new Date().toISOString();
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal((await run("forget", key)).code, 0);
  assert.equal((await run("revise", day, "Deploys happen on Tuesdays")).code, 0);

  const recalled = async (query: string, ...args: string[]) => {
    const answer = await run("recall", query, "--include", "memories", "--format", "json", ...args);
    assert.equal(answer.code, 0, answer.stderr);
    return JSON.parse(answer.stdout) as { results: Array<{ content: string }>; notes: string[] };
  };
  const stagingKey = "The staging deploy key is kept in vault under secret/staging";
  const past = await recalled("staging vault secret", "--as-of", then, "--mode", "lexical");
  assert.equal(past.results[0]?.content, stagingKey);
  assert.ok(past.notes.some((note) => note.startsWith(`as of ${then}`)));
  const hybrid = await recalled("staging vault secret", "--as-of", then);
  assert.ok(hybrid.results.some((hit) => hit.content === stagingKey), "hybrid finds it too");
  const friday = await recalled("fridays after standup", "--as-of", then, "--mode", "lexical");
  assert.equal(friday.results[0]?.content, "Deploys happen on Fridays after the standup");
  const now = await recalled("staging vault secret");
  assert.ok(now.results.every((hit) => !/staging deploy key/.test(hit.content)), "forgotten now");
});
