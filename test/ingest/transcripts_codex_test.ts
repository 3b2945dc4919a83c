import assert from "node:assert/strict";
import { join } from "node:path";
import { codexFormat } from "../../src/ingest/transcripts/codex.ts";
import { groupTurns, turnMentions, turnText } from "../../src/ingest/transcripts/turns.ts";
import { OWN_TRANSCRIPTS, parseFile } from "./transcripts_parse_helper.ts";

const ROLLOUT = join(OWN_TRANSCRIPTS, "codex-rollout.jsonl");

Deno.test("codexFormat reads a rollout's session, prompts, tool calls, outputs and compaction", async () => {
  const { parsed, entries } = await parseFile(ROLLOUT, codexFormat);
  assert.equal(parsed[0]!.session, "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee");
  assert.deepEqual(parsed.filter((p) => !p.known).map((p) => p.type), ["ghost_snapshot"]);
  const prompts = entries.filter((e) => e.kind === "prompt");
  assert.deepEqual(prompts.map((p) => p.line), [2, 15], "environment context is not a prompt");
  const tools = entries.flatMap((e) =>
    e.kind === "tool" ? [[e.name, e.input.command ?? "patch"]] : []
  );
  assert.deepEqual(tools, [
    ["shell", "cat src/parser.rs"],
    ["apply_patch", "patch"],
    ["shell", "cargo test"],
    ["local_shell", "echo fix >> CHANGELOG.md"],
  ]);
  assert.deepEqual(entries.filter((e) => e.kind === "compact").map((e) => e.line), [13]);
});

Deno.test("codex turns take their cwd from the session, and name the patched files", async () => {
  const { entries } = await parseFile(ROLLOUT, codexFormat);
  const { turns } = groupTurns(entries);
  assert.equal(turns.length, 2);
  const place = { cwd: turns[0]!.cwd, root: "/home/dev/engine" };
  assert.equal(place.cwd, "/home/dev/engine");
  assert.equal(
    turnText(turns[0]!, place),
    [
      "User: Why does the parser panic on empty input? Fix it.",
      "→ shell: cat src/parser.rs",
      "→ apply_patch: Update src/parser.rs, Add tests/empty.rs",
      "→ shell: cargo test (failed)",
      "Assistant: The parser indexed the first token without checking for empty input; it now returns None.",
    ].join("\n"),
  );
  assert.deepEqual(turnMentions(turns[0]!, place, (s) => s).map((m) => `${m.tool} ${m.path}`), [
    "shell src/parser.rs",
    "apply_patch src/parser.rs",
    "apply_patch tests/empty.rs",
  ]);
  assert.deepEqual(turnMentions(turns[1]!, place, (s) => s).map((m) => `${m.tool} ${m.path}`), [
    "local_shell CHANGELOG.md",
  ]);
});
