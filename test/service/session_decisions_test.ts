import assert from "node:assert/strict";
import { join } from "node:path";
import type { EventOf, StoredEvent } from "../../events/schema.ts";
import { Sessions } from "../../src/service/sessions.ts";
import { Store } from "../../src/service/store.ts";
import { collect, tempDir } from "../helpers.ts";
import { line, prompt, SESSION } from "./claude_lines.ts";

/** A user record carrying a tool's result, with Claude Code's `toolUseResult` beside it. */
function result(id: string, content: string, toolUseResult: unknown, at: number): string {
  const record = JSON.parse(
    line("user", [{ type: "tool_result", tool_use_id: id, content }], "", at),
  );
  return JSON.stringify({ ...record, toolUseResult }) + "\n";
}

Deno.test("Sessions.ingest() stores the user's decisions as the turn's user text, redacted like the rest", async () => {
  await using tmp = await tempDir();
  const cwd = join(tmp.path, "pledge");
  const path = join(tmp.path, `${SESSION}.jsonl`);
  const question = "Which payment provider key should the demo use?";
  const answer = "the test key sk-ant-api03-Zq8hR2vT9kLm4Xw7Pn3Bc6Df1Gh5Jk0Lm, never the live one";
  const queued = {
    type: "attachment",
    sessionId: SESSION,
    isSidechain: false,
    uuid: crypto.randomUUID(),
    timestamp: "2026-02-01T10:00:04.000Z",
    attachment: {
      type: "queued_command",
      prompt: "also log failed charges <private>card 4111 1111 1111 1111</private>",
      commandMode: "prompt",
      origin: { kind: "human" },
    },
  };
  await Deno.writeTextFile(
    path,
    prompt("Wire the demo to the payment provider", cwd, 0) +
      line(
        "assistant",
        [{
          type: "tool_use",
          id: "toolu_ask",
          name: "AskUserQuestion",
          input: { questions: [{ question, header: "Key", options: [], multiSelect: false }] },
        }],
        cwd,
        1,
      ) +
      result(
        "toolu_ask",
        `Your questions have been answered: "${question}"="${answer}".`,
        { questions: [{ question }], answers: { [question]: answer }, annotations: {} },
        2,
      ) +
      JSON.stringify(queued) + "\n",
  );
  const store = await Store.open(join(tmp.path, "store"));
  try {
    const report = await new Sessions(store).ingest({ path, agent: "claude", final: true });
    assert.equal(
      report.redactions,
      1,
      "the key (the <private> span goes with the user's words, uncounted, as in a prompt)",
    );
    const events: StoredEvent[] = await collect(store.log.read());
    const turn = events.find((e): e is EventOf<"turn.ingested"> & StoredEvent =>
      e.type === "turn.ingested"
    );
    assert.equal(
      await store.blobs.get(turn!.data.text),
      [
        "User: Wire the demo to the payment provider",
        `User answered "${question}": the test key [REDACTED], never the live one`,
        "User wrote while the agent worked: also log failed charges",
        "→ AskUserQuestion",
      ].join("\n"),
    );
  } finally {
    await store.close();
  }
});
