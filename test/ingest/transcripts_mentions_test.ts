import assert from "node:assert/strict";
import { join } from "node:path";
import { claudeFormat } from "../../src/ingest/transcripts/claude.ts";
import { normalise, promptMentions, toolMentions } from "../../src/ingest/transcripts/mentions.ts";
import { groupTurns, turnMentions, turnText } from "../../src/ingest/transcripts/turns.ts";
import { OWN_TRANSCRIPTS, parseFile } from "./transcripts_parse_helper.ts";

const place = { cwd: "/home/dev/shop/web", root: "/home/dev/shop" };

Deno.test("toolMentions reads the path of each file tool, relative to the project root", () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["Read", { file_path: "/home/dev/shop/src/a.ts" }, "src/a.ts"],
    ["Edit", { file_path: "src/b.ts", old_string: "x" }, "web/src/b.ts"],
    ["Write", { file_path: "/home/dev/shop/README.md", content: "" }, "README.md"],
    ["MultiEdit", { file_path: "/home/dev/shop/src/c.ts", edits: [] }, "src/c.ts"],
    ["NotebookEdit", { notebook_path: "/home/dev/shop/nb/x.ipynb" }, "nb/x.ipynb"],
    ["Grep", { pattern: "retry", path: "/home/dev/shop/src" }, "src"],
    ["Glob", { pattern: "**/*.ts", path: "/home/dev/shop/test" }, "test"],
  ];
  for (const [tool, input, expected] of cases) {
    const mentions = toolMentions(tool, input, place);
    assert.deepEqual(mentions.map((m) => m.path), [expected], tool);
    assert.equal(mentions[0]!.tool, tool);
    assert.ok(mentions[0]!.absolute?.startsWith("/home/dev/shop/"), tool);
  }
  assert.deepEqual(
    toolMentions("Glob", { pattern: "**/*.ts" }, place),
    [],
    "a bare glob names no file",
  );
  assert.deepEqual(toolMentions("Grep", { pattern: "x", path: "/home/dev/shop" }, place), []);
});

Deno.test("toolMentions keeps paths outside the project absolute", () => {
  assert.deepEqual(toolMentions("Read", { file_path: "/etc/hosts" }, place), [
    { path: "/etc/hosts", absolute: "/etc/hosts", tool: "Read" },
  ]);
  assert.deepEqual(normalise("~/notes.md", place), { path: "~/notes.md" });
  assert.deepEqual(normalise("src/a.ts", { cwd: null, root: null }), { path: "src/a.ts" });
});

Deno.test("promptMentions finds @file mentions and ignores e-mail addresses and handles", () => {
  const mentions = promptMentions(
    "Look at @src/a.ts and @README.md, ping @alice or bob@example.com about (@lib/b.rs).",
    place,
  );
  assert.deepEqual(mentions.map((m) => [m.path, m.tool]), [
    ["web/src/a.ts", "prompt"],
    ["web/README.md", "prompt"],
    ["web/lib/b.rs", "prompt"],
  ]);
});

Deno.test("turnMentions collects a turn's files once per tool, sub-agents and Bash included", async () => {
  const { entries } = await parseFile(join(OWN_TRANSCRIPTS, "claude-edge.jsonl"), claudeFormat);
  const turn = groupTurns(entries).turns[0]!;
  const where = { cwd: "/home/dev/shop", root: "/home/dev/shop" };
  assert.deepEqual(turnMentions(turn, where, (s) => s).map((m) => `${m.tool} ${m.path}`), [
    "prompt src/checkout/retry.ts",
    "Read src/checkout/retry.ts",
    "Grep src",
    "Glob test",
    "MultiEdit src/checkout/retry.ts",
    "NotebookEdit notebooks/latency.ipynb",
    "Bash test/checkout/retry.test.ts",
    "Bash package.json",
    "Read test/mocks/payments.ts",
  ]);
  assert.equal(
    turnText(turn, where),
    [
      "User: Fix the flaky retry in @src/checkout/retry.ts  please",
      "Assistant: Let me look at the retry logic.",
      "→ Read src/checkout/retry.ts",
      `→ Grep "backoff" in src`,
      "→ Glob **/*.test.ts in test",
      "→ MultiEdit src/checkout/retry.ts",
      "→ NotebookEdit notebooks/latency.ipynb",
      "→ Bash: npm test -- test/checkout/retry.test.ts && cat package.json | grep jest (failed)",
      "→ Task: Find payment mocks",
      "→ sub-agent Read test/mocks/payments.ts",
      "Assistant: The retry now uses jittered backoff; the test passes.",
    ].join("\n"),
  );
});
