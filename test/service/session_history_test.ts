import assert from "node:assert/strict";
import { join } from "node:path";
import type { Cairn } from "../../src/service/cairn.ts";
import { sessionHistory } from "../../src/service/session_history.ts";
import { tempDir } from "../helpers.ts";
import { answer, prompt, SESSION } from "./claude_lines.ts";
import { openWithFakeModel } from "./fake_cairn.ts";

const OTHER = "5e55a0b1-0000-4000-8000-000000000002";
const cwd = "/home/dev/shop";

/** Ingests one transcript of `turns` (a prompt and its answer each), from second `from` of a minute. */
async function ingest(
  cairn: Cairn,
  dir: string,
  session: string,
  turns: Array<[string, string]>,
  from = 0,
) {
  const path = join(dir, `${session}.jsonl`);
  await Deno.writeTextFile(
    path,
    turns.map(([asked, answered], i) =>
      prompt(asked, cwd, from + 2 * i, session) + answer(answered, cwd, from + 2 * i + 1, session)
    ).join(""),
  );
  await cairn.sessions.ingest({ path, agent: "claude", final: true });
  await cairn.store.runner.settled();
}

/** The first words of each turn a topic's history lists, and its notes. */
async function topic(cairn: Cairn, query: string) {
  const { entries, notes } = await sessionHistory(
    { graph: cairn.graph.database, text: cairn.text },
    { query },
  );
  return {
    turns: entries.map(({ turn }) => turn.text.replace(/^User: /, "").split(/[.:?\n]/)[0]),
    notes,
  };
}

Deno.test("history of a topic puts the relevant turn first though older, and cuts newer turns that share a word", async () => {
  await using tmp = await tempDir();
  const cairn = await openWithFakeModel(join(tmp.path, "store"));
  try {
    await ingest(cairn, tmp.path, SESSION, [
      [
        "The upload test is flaky on CI: it times out when the storage mock answers slowly",
        "Raised the mock's timeout; the flaky upload test passed 50 runs in a row.",
      ],
      ["Why is the login test flaky?", "It depended on the clock; it uses a fixed one now."],
      ["Add a test for the tax rules", "Added three tests for the tax rules."],
      ["Make the upload button blue", "The upload button is blue now."],
      ["Rename the checkout module", "Renamed it to cart."],
    ]);
    const { turns, notes } = await topic(cairn, "flaky upload test");
    assert.deepEqual(turns, [
      "The upload test is flaky on CI",
      "Why is the login test flaky",
    ]);
    assert.deepEqual(notes, [
      "left out 2 turns sharing far fewer of its words than the best",
    ]);
  } finally {
    await cairn.close();
  }
});

Deno.test("history of a topic lists turns of equal or near-equal relevance newest first", async () => {
  await using tmp = await tempDir();
  const cairn = await openWithFakeModel(join(tmp.path, "store"));
  try {
    await ingest(cairn, tmp.path, SESSION, [
      ["Bump the toolchain version", "Bumped it in rust-toolchain.toml."],
      ["Bump the toolchain version again", "Bumped it in rust-toolchain.toml."],
      ["Pin the toolchain version the CI workflow uses", "Pinned it in the workflow too."],
    ]);
    await ingest(cairn, tmp.path, OTHER, [
      ["Bump the toolchain version", "Bumped it in rust-toolchain.toml."],
    ], 10);
    const { entries } = await sessionHistory(
      { graph: cairn.graph.database, text: cairn.text },
      { query: "toolchain version" },
    );
    assert.deepEqual(
      entries.map(({ turn }) => `${turn.session.slice(-1)}:${turn.line}`),
      ["2:0", "1:2", "1:0", "1:4"],
      "the exact tie (2:0, 1:0) and the near one (1:2) newest first, then the weaker 1:4",
    );
  } finally {
    await cairn.close();
  }
});
