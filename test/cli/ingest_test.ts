import assert from "node:assert/strict";
import { join } from "node:path";
import { cli, MAIN, tempDir } from "../helpers.ts";

const SHARED =
  new URL("../../../shared/fixtures/claude-code-transcripts/", import.meta.url).pathname;
const OWN = new URL("../fixtures/transcripts/", import.meta.url).pathname;

Deno.test("cairn ingest claude reads the fixture transcripts once, and status shows their events", async () => {
  await using tmp = await tempDir();
  const store = ["--store", join(tmp.path, "store")];
  const first = await cli([...store, "ingest", "claude", SHARED, "--no-wait"]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(
    first.stdout,
    /ingested 7 transcripts: 7 turns read, 7 new, 0 replaced, 0 unchanged/,
  );
  const status = JSON.parse((await cli([...store, "status", "--json"])).stdout);
  assert.equal(status.head, 14, "a turn and a transcript position per transcript");
  const again = await cli([...store, "ingest", "claude", SHARED, "--no-wait", "--json"]);
  const report = JSON.parse(again.stdout);
  assert.equal(report.transcripts.length, 7);
  assert.ok(report.transcripts.every((t: { unchanged: number }) => t.unchanged === 1));
  assert.equal(JSON.parse((await cli([...store, "status", "--json"])).stdout).head, 14);
  const history = await cli([...store, "history", "Cargo.toml"]);
  assert.equal(history.code, 0, history.stderr);
  assert.match(
    history.stdout,
    /^- 2026-01-21 \d\d:\d\d session c7d3d95c \(Edit, Read Cargo\.toml\): User: Port this Python project to Rust/,
  );
  const absolute = await cli([...store, "history", "/somewhere/else/tests/test_math_utils.py"]);
  assert.match(absolute.stdout, /session c64cc478 \(Bash, Edit, Read tests\/test_math_utils\.py\)/);
  const none = await cli([...store, "history", "nope.rs", "--json"]);
  assert.deepEqual(JSON.parse(none.stdout).entries, []);
  assert.match(JSON.parse(none.stdout).notes[0], /no ingested session touched nope\.rs/);
  const topic = await cli([...store, "history", "porting the python code to rust", "--limit", "2"]);
  assert.equal(topic.code, 0, topic.stderr);
  assert.match(topic.stdout.split("\n")[0]!, /session c7d3d95c: User: Port this Python project/);
  assert.equal(topic.stdout.split("\n").filter((line) => line.startsWith("- ")).length, 2);
  const edge = await cli([
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
  const hook = await cli(
    ["--store", join(tmp.path, "store"), "ingest", "claude", "--hook", "--no-wait", "--json"],
    {},
    {
      stdin: JSON.stringify({
        session_id: "s",
        transcript_path: join(SHARED, "hello-world-script.jsonl"),
        hook_event_name: "SessionEnd",
        cwd: "/tmp",
      }),
    },
  );
  assert.equal(hook.code, 0, hook.stderr);
  const [report] = JSON.parse(hook.stdout).transcripts;
  assert.equal(report.added, 1);
});

Deno.test("cairn ingest refuses an unknown agent and says where no transcripts are", async () => {
  await using tmp = await tempDir();
  const store = ["--store", join(tmp.path, "store")];
  const agent = await cli([...store, "ingest", "cursor"]);
  assert.equal(agent.code, 2);
  assert.match(agent.stderr, /"claude" or "codex"/);
  const missing = await cli([...store, "ingest", "codex", join(tmp.path, "nowhere")]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no Codex transcripts at .*nowhere/);
});

Deno.test("cairn ingest codex --watch ingests a rollout again when it grows", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "sessions", "2026", "02", "03");
  await Deno.mkdir(dir, { recursive: true });
  const path = join(dir, "rollout-1.jsonl");
  await Deno.copyFile(join(OWN, "codex-rollout.jsonl"), path);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, "--store", join(tmp.path, "store"), "ingest"]
      .concat(["codex", join(tmp.path, "sessions"), "--watch", "--no-wait"]),
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).values();
  const seen: string[] = [];
  const waitFor = async (pattern: RegExp) => {
    const deadline = Date.now() + 15_000;
    while (!pattern.test(seen.join(""))) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((done) => timer = setTimeout(() => done("late"), 15_000));
      const next = await Promise.race([lines.next(), late]);
      clearTimeout(timer);
      if (next === "late" || next.done || Date.now() > deadline) {
        assert.fail(`no ${pattern} in: ${seen.join("")}`);
      }
      seen.push(next.value);
    }
  };
  try {
    await waitFor(/watching/);
    assert.match(seen.join(""), /2 turns read, 2 new/);
    const more = JSON.stringify({
      timestamp: "2026-02-03T08:01:00.000Z",
      type: "response_item",
      payload: { type: "message", role: "user", content: [{ type: "input_text", text: "Thanks" }] },
    });
    await Deno.writeTextFile(path, more + "\n", { append: true });
    await waitFor(/watching[\s\S]*1 new, 1 replaced/);
  } finally {
    child.kill();
    await child.status;
    await lines.return?.();
  }
});
