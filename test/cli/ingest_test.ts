import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { cliHere } from "./in_process.ts";
import { prompt, SESSION, tool } from "../service/claude_lines.ts";
import { watchProcess } from "./watch_process.ts";
import { watchHere } from "./watch_here.ts";

const OWN = new URL("../fixtures/transcripts/", import.meta.url).pathname;
/** This project's own Claude Code sessions: seven transcripts, one prompt each. */
const SESSIONS = join(OWN, "claude-sessions");

Deno.test("cairn ingest claude reads the fixture transcripts once, and status shows their events", async () => {
  await using tmp = await tempDir();
  const store = ["--store", join(tmp.path, "store")];
  const first = await cliHere([...store, "ingest", "claude", SESSIONS, "--no-wait"]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(
    first.stdout,
    /ingested 7 transcripts: 7 turns read, 7 new, 0 replaced, 0 unchanged/,
  );
  const status = JSON.parse((await cliHere([...store, "status", "--json"])).stdout);
  assert.equal(status.head, 14, "a turn and a transcript position per transcript");
  const again = await cliHere([...store, "ingest", "claude", SESSIONS, "--no-wait", "--json"]);
  const report = JSON.parse(again.stdout);
  assert.equal(report.transcripts.length, 7);
  assert.ok(report.transcripts.every((t: { unchanged: number }) => t.unchanged === 1));
  assert.equal(JSON.parse((await cliHere([...store, "status", "--json"])).stdout).head, 14);
  const history = await cliHere([...store, "history", "Cargo.toml"]);
  assert.equal(history.code, 0, history.stderr);
  assert.match(
    history.stdout,
    /^- 2026-02-12 14:02 session eca178f3:\d+ \(Edit, Read Cargo\.toml\): User: Port the unit converter in this repo from Python to Rust/,
  );
  // Written, then edited after other files were touched: both tools, on this file alone.
  const lib = await cliHere([...store, "history", "src/lib.rs"]);
  assert.match(lib.stdout, /session eca178f3:\d+ \(Edit, Write src\/lib\.rs\)/);
  const absolute = await cliHere([...store, "history", "/somewhere/else/tests/test_rounding.py"]);
  assert.match(
    absolute.stdout,
    /^- 2026-02-10 09:41 session bb759569:\d+ \(Bash, Edit, Read tests\/test_rounding\.py\): User: tests\/test_rounding\.py started failing/,
  );
  const none = await cliHere([...store, "history", "nope.rs", "--json"]);
  assert.deepEqual(JSON.parse(none.stdout).entries, []);
  assert.match(JSON.parse(none.stdout).notes[0], /^\d+ sessions read, none touched nope\.rs$/);
  const topic = await cliHere([
    ...store,
    "history",
    "porting the python code to rust",
    "--limit",
    "2",
  ]);
  assert.equal(topic.code, 0, topic.stderr);
  // Most relevant first: the port shares the most of the topic's words.
  assert.match(topic.stdout.split("\n")[0]!, /session eca178f3:\d+: User: Port the unit converter/);
  assert.equal(topic.stdout.split("\n").filter((line) => line.startsWith("- ")).length, 2);
  const edge = await cliHere([
    ...store,
    "ingest",
    "claude",
    join(OWN, "claude-edge.jsonl"),
    "--no-wait",
  ]);
  assert.equal(edge.code, 0, edge.stderr);
  assert.match(edge.stdout, /2 turns read, 2 new/);
  assert.match(edge.stdout, /skipped records of unknown types: mystery-record \(1\)/);
  assert.match(edge.stdout, /1 transcript\(s\) end in a half-written line/);
});

Deno.test("cairn ingest claude --hook reads the transcript path from a hook's JSON on stdin", async () => {
  await using tmp = await tempDir();
  const hook = await cliHere(
    ["--store", join(tmp.path, "store"), "ingest", "claude", "--hook", "--no-wait", "--json"],
    {
      env: { CAIRN_ALLOWED_ROOTS: SESSIONS },
      stdin: JSON.stringify({
        session_id: "s",
        transcript_path: join(SESSIONS, "hello-script.jsonl"),
        hook_event_name: "SessionEnd",
        cwd: "/tmp",
      }),
    },
  );
  assert.equal(hook.code, 0, hook.stderr);
  const [report] = JSON.parse(hook.stdout).transcripts;
  assert.equal(report.added, 1);
});

Deno.test("cairn ingest claude --hook on SessionStart tells the agent its session id, and only that", async () => {
  await using tmp = await tempDir();
  const start = (transcript: string) =>
    cliHere(
      ["--store", join(tmp.path, "store"), "ingest", "claude", "--hook", "--no-wait"],
      {
        env: { CAIRN_ALLOWED_ROOTS: SESSIONS },
        stdin: JSON.stringify({
          session_id: "7a1c2e40",
          transcript_path: transcript,
          hook_event_name: "SessionStart",
          source: "resume",
        }),
      },
    );
  for (const transcript of [join(SESSIONS, "hello-script.jsonl"), join(SESSIONS, "new.jsonl")]) {
    const started = await start(transcript);
    assert.equal(started.code, 0, started.stderr);
    const output = JSON.parse(started.stdout);
    assert.equal(output.hookSpecificOutput.hookEventName, "SessionStart");
    assert.match(output.hookSpecificOutput.additionalContext, /session: "7a1c2e40"/);
  }
  const history = await cliHere(["--store", join(tmp.path, "store"), "history", "hello"]);
  assert.match(history.stdout, /hello/i, "a resumed session's transcript was ingested too");
});

Deno.test("cairn ingest refuses an unknown agent and says where no transcripts are", async () => {
  await using tmp = await tempDir();
  const store = ["--store", join(tmp.path, "store")];
  const agent = await cliHere([...store, "ingest", "cursor"]);
  assert.equal(agent.code, 2);
  assert.match(agent.stderr, /"claude" or "codex"/);
  const missing = await cliHere([...store, "ingest", "codex", join(tmp.path, "nowhere")]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no Codex transcripts at .*nowhere/);
  const projects = join(tmp.path, "projects");
  await Deno.mkdir(projects);
  const empty = await cliHere([...store, "ingest", "claude", projects]);
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /no Claude Code transcripts .* under .*projects yet; .*--watch/);
});

Deno.test("cairn ingest codex --watch ingests a rollout again when it grows", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "sessions", "2026", "02", "03");
  await Deno.mkdir(dir, { recursive: true });
  const path = join(dir, "rollout-1.jsonl");
  await Deno.copyFile(join(OWN, "codex-rollout.jsonl"), path);
  await using watcher = watchHere(
    ["--store", join(tmp.path, "store"), "ingest", "codex", join(tmp.path, "sessions")]
      .concat(["--watch", "--no-wait"]),
    { CAIRN_ALLOWED_ROOTS: tmp.path },
  );
  assert.match(await watcher.waitFor(/watching/), /2 turns read, 2 new/);
  const more = JSON.stringify({
    timestamp: "2026-02-03T08:01:00.000Z",
    type: "response_item",
    payload: { type: "message", role: "user", content: [{ type: "input_text", text: "Thanks" }] },
  });
  await Deno.writeTextFile(path, more + "\n", { append: true });
  await watcher.waitFor(/watching[\s\S]*1 new, 1 replaced/);
});

Deno.test("cairn ingest claude --watch without an owner opens the store per batch and stops on SIGINT", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const projects = join(tmp.path, "projects", "-home-dev-shop");
  await Deno.mkdir(projects, { recursive: true });
  const path = join(projects, `${SESSION}.jsonl`);
  await Deno.writeTextFile(path, prompt("Why is checkout slow?", "/home/dev/shop", 0));
  // Made before the watch starts: a file written at once into a folder made while watching can
  // come before the watch of that folder does, and is then only seen when it is written again.
  const subAgents = join(projects, SESSION, "subagents");
  await Deno.mkdir(subAgents, { recursive: true });
  const env = { CAIRN_ALLOWED_ROOTS: tmp.path };
  await using watcher = watchProcess(
    ["--store", store, "ingest", "claude", join(tmp.path, "projects"), "--watch", "--no-wait"],
    env,
  );
  assert.match(await watcher.waitFor(/watching/), /1 turn read, 1 new/);
  const status = await cliHere(["--store", store, "status", "--json"], { env });
  assert.equal(status.code, 0, `the store is free between batches: ${status.stderr}`);

  await Deno.writeTextFile(
    path,
    tool("Read", { file_path: "/home/dev/shop/src/cart.ts" }, "/home/dev/shop", 1) +
      prompt("Now add a test", "/home/dev/shop", 2),
    { append: true },
  );
  await watcher.waitFor(/watching[\s\S]*1 new, 1 replaced/);
  await Deno.writeTextFile(
    join(subAgents, "agent-a77.jsonl"),
    JSON.stringify({
      ...JSON.parse(prompt("Find the slow query", "/home/dev/shop", 3)),
      isSidechain: true,
      agentId: "a77",
    }) + "\n",
  );
  await watcher.waitFor(/1 new, 1 replaced[\s\S]*ingested 1 transcript: 1 turn read, 1 new/);
  const stopped = await watcher.stop("SIGINT");
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.match(stopped.stdout, /stopped watching\n$/);
  const history = await cliHere(["--store", store, "history", "cart.ts"], { env });
  assert.match(history.stdout, /session 5e55a0b1:\d+ \(Read src\/cart\.ts\)/);
});

const SUB_AGENTS = join(OWN, "claude-subagents");
const PARENT = "7a1c2e40-5b3d-4e8f-9a61-2c0d4b8e1f37";

Deno.test("cairn ingest claude reads sub-agents' files into their parent's session, with their files", async () => {
  await using tmp = await tempDir();
  const store = ["--store", join(tmp.path, "store")];
  const first = await cliHere([...store, "ingest", "claude", SUB_AGENTS, "--no-wait", "--json"]);
  assert.equal(first.code, 0, first.stderr);
  const reports = JSON.parse(first.stdout).transcripts as Array<{ path: string; session: string }>;
  assert.deepEqual(
    reports.map((report) => [report.path.slice(SUB_AGENTS.length), report.session]),
    [
      [`/shop/${PARENT}.jsonl`, PARENT],
      [`/shop/${PARENT}/subagents/agent-a3f9c1e.jsonl`, `${PARENT}/agent-a3f9c1e`],
    ],
    "the compaction agent's file is not a transcript",
  );
  const history = await cliHere([...store, "history", "tax_rules.py"]);
  assert.match(
    history.stdout,
    /^- 2026-03-04 09:00 session 7a1c2e40:\d+ \(Read src\/tax_rules\.py\): Sub-agent task: Find where the tax/,
  );
  const json = JSON.parse((await cliHere([...store, "history", "tax_rules.py", "--json"])).stdout);
  assert.equal(json.entries[0].turn.session, `${PARENT}/agent-a3f9c1e`);
  const head = JSON.parse((await cliHere([...store, "status", "--json"])).stdout).head;
  const again = await cliHere([...store, "ingest", "claude", SUB_AGENTS, "--no-wait"]);
  assert.match(
    again.stdout,
    /ingested 2 transcripts: 2 turns read, 0 new, 0 replaced, 2 unchanged/,
  );
  assert.equal(JSON.parse((await cliHere([...store, "status", "--json"])).stdout).head, head);
});

Deno.test("cairn ingest claude --hook brings the session's sub-agents along, from the allowed roots only", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const hook = (path: string, roots: string) =>
    cliHere(["--store", store, "ingest", "claude", "--hook", "--no-wait", "--json"], {
      env: { CAIRN_ALLOWED_ROOTS: roots },
      stdin: JSON.stringify({ transcript_path: path, hook_event_name: "Stop" }),
    });
  const parent = join(SUB_AGENTS, "shop", `${PARENT}.jsonl`);

  const outside = await hook(parent, join(tmp.path, "allowed"));
  assert.equal(outside.code, 1);
  assert.match(
    outside.stderr,
    /is outside the folders cairn may read \(.*allowed\); to allow it, add a folder that holds it to CAIRN_ALLOWED_ROOTS in the environment this command runs from/,
  );
  await assert.rejects(Deno.stat(store), Deno.errors.NotFound, "nothing written, not even a store");

  const allowed = join(tmp.path, "allowed");
  await Deno.mkdir(allowed);
  await Deno.symlink(parent, join(allowed, "link.jsonl"));
  const linked = await hook(join(allowed, "link.jsonl"), allowed);
  assert.equal(linked.code, 1);
  assert.match(linked.stderr, /where .*link\.jsonl leads\) is outside the folders/);
  await Deno.writeTextFile(join(allowed, "notes.txt"), "{}\n");
  const text = await hook(join(allowed, "notes.txt"), allowed);
  assert.match(text.stderr, /notes\.txt is not a Claude Code transcript; give a session's \.jsonl/);
  await assert.rejects(Deno.stat(store), Deno.errors.NotFound);

  const read = await hook(parent, SUB_AGENTS);
  assert.equal(read.code, 0, read.stderr);
  const sessions = JSON.parse(read.stdout).transcripts.map((t: { session: string }) => t.session);
  assert.deepEqual(sessions, [PARENT, `${PARENT}/agent-a3f9c1e`]);
});

Deno.test("cairn ingest refuses a file that is not a transcript, and --watch outside the allowed roots", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  await Deno.writeTextFile(join(tmp.path, "notes.md"), "# notes\n");
  const typed = await cliHere(["--store", store, "ingest", "claude", join(tmp.path, "notes.md")]);
  assert.equal(typed.code, 1);
  assert.match(typed.stderr, /notes\.md is not a Claude Code transcript/);
  const watch = await cliHere(
    ["--store", store, "ingest", "codex", tmp.path, "--watch"],
    { env: { CAIRN_ALLOWED_ROOTS: join(tmp.path, "elsewhere") } },
  );
  assert.equal(watch.code, 1);
  assert.match(watch.stderr, /outside the folders cairn may read.*CAIRN_ALLOWED_ROOTS/);
  const both = await cliHere(["--store", store, "ingest", "claude", "--hook", "--watch"]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--hook and --watch do not go together/);
  await assert.rejects(Deno.stat(store), Deno.errors.NotFound, "nothing written");
});
