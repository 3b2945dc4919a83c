import assert from "node:assert/strict";
import { join } from "node:path";
import type { Cairn } from "../../src/service/cairn.ts";
import { tempDir } from "../helpers.ts";
import { openWithFakeModel } from "./fake_cairn.ts";

const TRANSCRIPT = new URL(
  "../fixtures/transcripts/claude-sessions/ledger-rounding-fix.jsonl",
  import.meta.url,
).pathname;
/** The projections folded from the log by each process before they were projections. */
const FOLDS = ["code_catalog", "session_state", "memory_history"];

/** What a store answers from the code catalog, the session state and the memory history. */
async function answers(cairn: Cairn) {
  const later = new Date(Date.now() + 60_000).toISOString();
  return {
    projects: await cairn.code.projects(),
    status: await cairn.code.status(),
    reingest: await cairn.sessions.ingest({ path: TRANSCRIPT, agent: "claude" }),
    history: [...(await cairn.memories.history(later))],
    listed: await cairn.memories.list({ as_of: later, include_forgotten: true }),
  };
}

Deno.test("a store written before the code catalog, session state and memory history opens, builds them from the log and answers the same", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "shop");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  await Deno.writeTextFile(join(repo, "cart.py"), "def add_item(cart, item):\n    return cart\n");
  const store = join(tmp.path, "store");
  let cairn = await openWithFakeModel(store);
  let before;
  try {
    const kept = await cairn.memories.remember({ content: "Deploys run on Tuesdays" });
    await cairn.memories.revise({ id: kept.memory.id, content: "Deploys run on Wednesdays" });
    const dropped = await cairn.memories.remember({ content: "The cache TTL is five minutes" });
    await cairn.memories.forget(dropped.memory.id);
    await cairn.code.index({ path: repo });
    await cairn.sessions.ingest({ path: TRANSCRIPT, agent: "claude" });
    before = await answers(cairn);
  } finally {
    await cairn.close();
  }
  assert.equal(before.status[0]?.files, 1);
  assert.ok(before.reingest.unchanged > 0);
  assert.equal(before.history.length, 2);

  for (const name of FOLDS) {
    await Deno.remove(join(store, "projections", name), { recursive: true });
  }
  cairn = await openWithFakeModel(store);
  try {
    const status = cairn.store.runner.status().filter((p) => FOLDS.includes(p.name));
    assert.deepEqual(
      status.map(({ name, checkpoint, lag }) => ({ name, checkpoint, lag })),
      FOLDS.map((name) => ({ name, checkpoint: cairn.store.log.head, lag: 0 })),
    );
    assert.deepEqual(await answers(cairn), before);
  } finally {
    await cairn.close();
  }
});
