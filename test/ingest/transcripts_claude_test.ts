import assert from "node:assert/strict";
import { join } from "node:path";
import { claudeFormat } from "../../src/ingest/transcripts/claude.ts";
import { groupTurns, type Turn, turnText } from "../../src/ingest/transcripts/turns.ts";
import {
  OWN_SESSIONS,
  OWN_TRANSCRIPTS,
  parseFile,
  SHARED_TRANSCRIPTS,
  sharedOnly,
} from "./transcripts_parse_helper.ts";

const EDGE = join(OWN_TRANSCRIPTS, "claude-edge.jsonl");

/** Each transcript of `dir` parsed: every record known, one turn each; the types, tools and turns. */
async function parseSessions(dir: string) {
  const files = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
  const types = new Set<string>();
  const tools = new Set<string>();
  const turns = new Map<string, Turn>();
  for (const name of files) {
    const { parsed, partial, entries } = await parseFile(join(dir, name), claudeFormat);
    assert.equal(partial, null, name);
    for (const record of parsed) {
      assert.ok(record.known, `${name}: ${record.type} unknown`);
      types.add(record.type);
    }
    for (const entry of entries) if (entry.kind === "tool") tools.add(entry.name);
    const grouped = groupTurns(entries);
    assert.equal(
      grouped.turns.length,
      1,
      `${name}: one prompt each (the rest are tool results and hook feedback)`,
    );
    assert.equal(grouped.orphans, 0, name);
    turns.set(name, grouped.turns[0]!);
  }
  return { files, types, tools, turns };
}

Deno.test("claudeFormat parses every record of this project's Claude Code sessions", async () => {
  const { files, types, tools, turns } = await parseSessions(OWN_SESSIONS);
  assert.equal(files.length, 7);
  assert.deepEqual([...types].sort(), [
    "assistant",
    "file-history-snapshot",
    "queue-operation",
    "user",
  ]);
  assert.deepEqual([...tools].sort(), [
    "Bash",
    "Edit",
    "Glob",
    "Read",
    "Task",
    "TodoWrite",
    "Write",
  ]);
  for (const [name, turn] of turns) assert.ok(turn.cwd?.startsWith("/home/mira/"), name);
  const port = turns.get("unitconv-rust-port.jsonl")!;
  assert.match(port.prompt, /^Port the unit converter in this repo from Python to Rust/);
  assert.equal(port.startedAt, "2026-02-12T14:02:11.237Z");
  const failed = (turn: Turn) =>
    turn.steps.flatMap((s) => "tool" in s && s.tool.failed ? [s.tool.input.command] : []);
  assert.deepEqual(failed(port), ["cargo test 2>&1 | tail -20"], "the build that did not compile");
  const fix = turns.get("ledger-rounding-fix.jsonl")!;
  assert.deepEqual(failed(fix), [
    "python -m pytest tests/test_rounding.py -q",
    "python -m pytest tests/test_rounding.py -q",
  ]);
  assert.match(
    fix.steps.flatMap((s) => "answer" in s ? [s.answer] : []).at(-1)!,
    /^All 26 tests pass/,
    "what the agent did after the stop hook's feedback stays in the turn",
  );
  assert.deepEqual(turns.get("wrap-up.jsonl")!.steps.map((s) => "answer" in s), [true]);
});

Deno.test({
  ...sharedOnly("claudeFormat parses every record of the real Claude Code fixtures in ../shared"),
  fn: async () => {
    const { files, types, tools, turns } = await parseSessions(SHARED_TRANSCRIPTS);
    assert.equal(files.length, 7);
    for (const [name, turn] of turns) assert.ok(turn.cwd?.startsWith("/tmp/"), name);
    assert.deepEqual([...types].sort(), ["assistant", "queue-operation", "user"]);
    assert.deepEqual([...tools].sort(), [
      "Bash",
      "Edit",
      "Glob",
      "Read",
      "Task",
      "TodoWrite",
      "Write",
    ]);
  },
});

Deno.test("claudeFormat tells prompts from tool results, hook feedback, interruptions and summaries", async () => {
  const { parsed, entries, partial } = await parseFile(EDGE, claudeFormat);
  const prompts = entries.filter((e) => e.kind === "prompt");
  assert.deepEqual(prompts.map((p) => p.kind === "prompt" && [p.line, p.text.slice(0, 22)]), [
    [1, "Fix the flaky retry in"],
    [21, "/review src/checkout"],
  ]);
  assert.deepEqual(entries.filter((e) => e.kind === "summary").map((e) => e.line), [0, 16]);
  assert.deepEqual(entries.filter((e) => e.kind === "compact").map((e) => e.line), [15]);
  assert.deepEqual(parsed.filter((p) => !p.known).map((p) => p.type), ["mystery-record"]);
  assert.ok(partial, "the half-written last line is returned apart");
  assert.equal(partial.index, 23);
  const failed = entries.find((e) => e.kind === "result" && e.error);
  assert.deepEqual(failed, { kind: "result", line: 11, toolId: "t6", error: true });
});

Deno.test("claudeFormat keeps a sub-agent's tool calls but not its prompt or text", async () => {
  const { entries } = await parseFile(EDGE, claudeFormat);
  const sidechain = entries.filter((e) => e.line === 13 || e.line === 14);
  assert.deepEqual(sidechain.map((e) => e.kind), ["tool"]);
  assert.ok(sidechain[0]!.kind === "tool" && sidechain[0]!.sidechain);
});

Deno.test("groupTurns keeps a turn going across a compaction and ends it at the next prompt", async () => {
  const { entries } = await parseFile(EDGE, claudeFormat);
  const { turns, compactions } = groupTurns(entries);
  assert.deepEqual(turns.map((t) => t.line), [1, 21]);
  assert.deepEqual(compactions, [15]);
  assert.deepEqual(turns.map((t) => t.compactions), [[15], []], "the boundary is in its turn");
  const answers = turns[0]!.steps.flatMap((s) => "answer" in s ? [s.answer] : []);
  assert.deepEqual(answers, [
    "Let me look at the retry logic.",
    "The retry now uses jittered backoff; the test passes.",
  ]);
  assert.equal(turns[0]!.startedAt, "2026-02-01T10:00:00.000Z");
  assert.equal(turns[0]!.cwd, "/home/dev/shop");
});

const SUB_AGENT = join(
  OWN_TRANSCRIPTS,
  "claude-subagents/shop/7a1c2e40-5b3d-4e8f-9a61-2c0d4b8e1f37/subagents/agent-a3f9c1e.jsonl",
);

Deno.test("claudeFormat reads a sub-agent's own file as its turn: its task, text and tool calls", async () => {
  const { parsed, entries } = await parseFile(SUB_AGENT, {
    ...claudeFormat,
    newParser: () => claudeFormat.newParser({ subAgent: true }),
  });
  assert.ok(parsed.every((record) => record.session === "7a1c2e40-5b3d-4e8f-9a61-2c0d4b8e1f37"));
  const { turns } = groupTurns(entries);
  assert.equal(turns.length, 1);
  const [turn] = turns;
  assert.equal(turn!.subAgent, true);
  assert.match(turn!.prompt, /^Find where the tax of a refund is computed/);
  assert.deepEqual(
    turn!.steps.map((step) => "tool" in step ? `${step.tool.name} ${step.tool.sidechain}` : "text"),
    ["Grep false", "Read false", "Bash false", "text"],
    "within its own turn, a sub-agent's calls are not asides",
  );
  assert.match(
    turnText(turn!, { cwd: "/home/dev/shop", root: "/home/dev/shop" }),
    /^Sub-agent task: Find where[^\n]*\n→ Grep "round\\\(" in src\n→ Read src\/tax_rules\.py\n/,
  );
});

Deno.test("claudeFormat keeps a sub-agent's file out of turns unless told it is one, and skips warm-ups", async () => {
  const { entries } = await parseFile(SUB_AGENT, claudeFormat);
  assert.deepEqual(
    [...new Set(entries.map((e) => e.kind))],
    ["tool", "result"],
    "read as asides: tool calls and their results only",
  );
  const warmup = {
    type: "user",
    isSidechain: true,
    sessionId: "s",
    agentId: "a1",
    message: { role: "user", content: "Warmup" },
  };
  const line = { index: 0, offset: 0, text: JSON.stringify(warmup) };
  assert.deepEqual(claudeFormat.newParser({ subAgent: true }).parse(warmup, line).entries, []);
});
