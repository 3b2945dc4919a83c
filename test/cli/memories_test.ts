import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { ownerHere } from "./in_process.ts";

Deno.test("cairn remember, list, revise, forget and get work end to end", async () => {
  await using tmp = await tempDir();
  await using owner = await ownerHere(tmp.path);
  const stored = await owner.cli([
    "remember",
    "Retries",
    "use",
    "exponential",
    "backoff",
    "--kind",
    "pattern",
    "--json",
  ]);
  assert.equal(stored.code, 0, stored.stderr);
  const { memory } = JSON.parse(stored.stdout);
  assert.equal(memory.content, "Retries use exponential backoff");
  const listed = await owner.cli(["list"]);
  assert.match(listed.stdout, /\[pattern\] Retries use exponential backoff/);
  const revised = await owner.cli([
    "revise",
    memory.id,
    "Retries",
    "use",
    "jittered",
    "backoff",
  ]);
  assert.match(revised.stdout, /jittered/);
  const forgotten = await owner.cli(["forget", memory.id]);
  assert.equal(forgotten.stdout, `forgotten: \`${memory.id}\`\n`);
  assert.match((await owner.cli(["list"])).stdout, /No memories match/);
  const head = JSON.parse((await owner.cli(["status", "--json"])).stdout).head;
  const again = await owner.cli(["forget", memory.id, "--json"]);
  assert.equal(again.code, 0, "forgetting is idempotent");
  assert.match(JSON.parse(again.stdout).forgotten_before, /^\d{4}-\d{2}-\d{2}T/);
  const twice = await owner.cli(["forget", memory.id]);
  assert.match(
    twice.stdout,
    /^already forgotten on \d{4}-\d{2}-\d{2}: `mem_.*` \(nothing changed\)$/m,
  );
  assert.equal(
    JSON.parse((await owner.cli(["status", "--json"])).stdout).head,
    head,
    "nothing written",
  );
  const missing = await owner.cli(["get", "mem_missing"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no memory with id mem_missing/);
  const bad = await owner.cli(["remember", "x", "--kind", "rumour"]);
  assert.equal(bad.code, 2, "a usage error");
  assert.match(bad.stderr, /kind/);
  const badDate = await owner.cli(["list", "--as-of", "last tuesday"]);
  assert.equal(badDate.code, 2);
  assert.match(badDate.stderr, /--as-of takes an ISO 8601 date, not "last tuesday"/);
});

Deno.test("cairn list, remember and revise show the start of a long memory and how much more there is; get shows it whole", async () => {
  await using tmp = await tempDir();
  await using owner = await ownerHere(tmp.path);
  const long = `The release checklist: ${"verify the changelog, tag, build, sign. ".repeat(200)}`;
  const stored = await owner.cli(["remember", long, "--json"]);
  const { memory } = JSON.parse(stored.stdout);
  const listed = (await owner.cli(["list"])).stdout.trim();
  const more = long.trim().length - 500;
  assert.match(
    listed,
    new RegExp(
      `^- \\[note\\] The release checklist: .*… \\(${more} more characters; open shows it whole\\) \`${memory.id}\`$`,
    ),
  );
  assert.ok(listed.length < 700);
  assert.ok((await owner.cli(["get", memory.id])).stdout.includes(long.trim()));
  // Remembering or revising a long text does not send it back whole either.
  const guide = `The onboarding guide: ${"read the handbook, set up the laptop. ".repeat(200)}`;
  const again = await owner.cli(["remember", guide]);
  assert.match(
    again.stdout,
    /^remembered:\n- \[note\] The onboarding guide: .*open shows it whole/,
  );
  assert.ok(again.stdout.length < 700, `${again.stdout.length} characters`);
  const revised = await owner.cli(["revise", memory.id, `${long} Then publish the notes.`]);
  assert.match(
    revised.stdout,
    /^revised:\n- \[note\] The release checklist: .*open shows it whole/,
  );
  assert.ok(revised.stdout.length < 700, `${revised.stdout.length} characters`);
});

Deno.test("cairn remember stores the entities and relations it is given, and refuses a malformed relation", async () => {
  await using tmp = await tempDir();
  await using owner = await ownerHere(tmp.path);
  const stored = await owner.cli([
    "remember",
    "Ada moved the billing service to Postgres 16",
    "--entity",
    "Ada",
    "--relation",
    "billing service | uses | Postgres",
    "--source",
    "standup notes",
  ]);
  assert.equal(stored.code, 0, stored.stderr);
  const graph = await owner.cli(["graph", "open", "billing service", "Postgres", "Ada"]);
  assert.match(graph.stdout, /^- billing service —uses→ Postgres$/m);
  assert.match(graph.stdout, /^- Ada \(concept\)$/m);
  const bad = await owner.cli(["remember", "x", "--relation", "Ada|maintains"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--relation takes FROM\|RELATION\|TO/);
});

Deno.test("cairn import reads benchmark-format JSONL and refuses a bad line without importing anything", async () => {
  await using tmp = await tempDir();
  const good = join(tmp.path, "good.jsonl");
  await Deno.writeTextFile(
    good,
    [
      {
        id: "c:1",
        project: "c",
        kind: "conversation",
        content: "Ann: I adopted a cat",
        ts: "2023-05-08T13:56:00",
        session: "c:S1",
        speaker: "Ann",
      },
      {
        id: "c:2",
        project: "c",
        kind: "conversation",
        content: "Bob: nice!",
        ts: "2023-05-08T13:57:00",
        session: "c:S1",
        speaker: "Bob",
      },
    ].map((line) => JSON.stringify(line)).join("\n") + "\n",
  );
  await using owner = await ownerHere(join(tmp.path, "store"));
  const imported = await owner.cli(["import", good]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /imported 2 memories/);
  const again = await owner.cli(["import", good]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(
    again.stdout,
    /imported 0 memories .*\(2 with an id already imported were skipped\)/,
  );
  const bad = join(tmp.path, "bad.jsonl");
  await Deno.writeTextFile(bad, `{"id":"x","content":"fine"}\n{"id":"y"}\n`);
  const refused = await owner.cli(["import", bad]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /bad\.jsonl:2: .*content/);
  // Every bad line is named at once, each field as the file writes it.
  await Deno.writeTextFile(
    bad,
    `{"id":"x","content":""}\nnot json\n{"id":"z","content":"ok","ts":"yesterday"}\n`,
  );
  const all = await owner.cli(["import", bad]);
  assert.equal(all.code, 1);
  assert.match(
    all.stderr,
    new RegExp(
      `3 lines are wrong; nothing was imported:\\n${bad}:1: content is empty\\n` +
        `${bad}:2: not valid JSON\\n${bad}:3: ts takes an ISO 8601 date`,
    ),
  );
  await Deno.writeTextFile(
    bad,
    `{"id":"x","content":"one text"}\n{"id":"x","content":"another text"}\n`,
  );
  const twice = await owner.cli(["import", bad]);
  assert.equal(twice.code, 2);
  assert.match(twice.stderr, /id x is given two different texts; give each record its own id/);
  const listed = JSON.parse((await owner.cli(["list", "--json"])).stdout);
  assert.equal(listed.length, 2);
  assert.equal(listed[0].external_id, "c:2");
  // The ids of the file find what they imported: get and open take them.
  assert.match(
    (await owner.cli(["get", "c:2"])).stdout,
    /^- \[conversation\] Bob: nice! #speaker:Bob \(c\) `mem_/,
  );
  const opened = await owner.cli(["open", "c:1"]);
  assert.equal(opened.code, 0, opened.stderr);
  assert.match(opened.stdout, /Ann: I adopted a cat/);
  const other = join(tmp.path, "other.jsonl");
  await Deno.writeTextFile(other, `{"id":"c:1","project":"d","content":"Dee: hello"}\n`);
  assert.equal((await owner.cli(["import", other])).code, 0);
  const ambiguous = await owner.cli(["get", "c:1"]);
  assert.equal(ambiguous.code, 2);
  assert.match(
    ambiguous.stderr,
    /c:1 is the imported id of 2 memories: mem_\S+ \(project [cd]\), mem_/,
  );
});

Deno.test("cairn import --from server-memory brings over the official memory server's entities and relations", async () => {
  await using tmp = await tempDir();
  const file = join(tmp.path, "memory.json");
  await Deno.writeTextFile(
    file,
    [
      {
        type: "entity",
        name: "Ada",
        entityType: "person",
        observations: ["writes the billing service"],
      },
      { type: "entity", name: "billing service", entityType: "service", observations: [] },
      { type: "relation", from: "Ada", to: "billing service", relationType: "maintains" },
    ].map((line) => JSON.stringify(line)).join("\n"),
  );
  await using owner = await ownerHere(join(tmp.path, "store"));
  const imported = await owner.cli(["import", "--from", "server-memory", file]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /imported 2 entities and 1 relation$/m);
  const stored = await owner.cli([
    "remember",
    "The billing service rounds invoices up",
    "--json",
  ]);
  assert.equal(stored.code, 0, stored.stderr);
  const status = JSON.parse((await owner.cli(["status", "--json"])).stdout);
  assert.equal(status.head, 4);
  const bad = join(tmp.path, "bad.json");
  await Deno.writeTextFile(bad, `{"type":"entity","name":"x"}\n`);
  const refused = await owner.cli(["import", "--from", "server-memory", bad]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /bad\.json:1: entityType/);
});

Deno.test("cairn get --as-of shows a past version and refuses a date it cannot read", async () => {
  await using tmp = await tempDir();
  await using owner = await ownerHere(tmp.path);
  const stored = await owner.cli(["remember", "Deploys", "run", "on", "Fridays", "--json"]);
  const { memory } = JSON.parse(stored.stdout);
  const before = new Date().toISOString();
  // The revision comes after `before` by the clock, however fast the owner runs it.
  while (Date.now() <= Date.parse(before)) await new Promise((resolve) => setTimeout(resolve, 1));
  await owner.cli(["revise", memory.id, "Deploys", "run", "on", "Tuesdays"]);
  const past = await owner.cli(["get", memory.id, "--as-of", before]);
  assert.equal(past.code, 0, past.stderr);
  assert.match(past.stdout, /Fridays/);
  const tooEarly = await owner.cli(["get", memory.id, "--as-of", "2001-01-01"]);
  assert.equal(tooEarly.code, 1);
  assert.match(
    tooEarly.stderr,
    new RegExp(
      `memory ${memory.id} did not exist yet at 2001-01-01.* \\(it was remembered at ${memory.created_at}\\)`,
    ),
  );
  const refused = await owner.cli(["get", memory.id, "--as-of", "garbage"]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--as-of takes an ISO 8601 date, not "garbage"/);
});
