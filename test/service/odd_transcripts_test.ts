import assert from "node:assert/strict";
import { join } from "node:path";
import { MAX_TURN_CHARS } from "../../src/ingest/transcripts/turns.ts";
import { MAX_LINE_CHARS } from "../../src/service/sessions.ts";
import { openWithFakeModel as open } from "./fake_cairn.ts";
import { filesUnder, tempDir } from "../helpers.ts";
import { answer, prompt } from "./claude_lines.ts";

Deno.test("a session id with a newline and a tab, and an answer of millions of characters, are ingested bounded and the store reopens", async () => {
  await using tmp = await tempDir();
  const cwd = join(tmp.path, "shop");
  await Deno.mkdir(join(cwd, ".git"), { recursive: true });
  const session = "odd\nsession\tid";
  const path = join(tmp.path, "odd.jsonl");
  const runaway = "x".repeat(6_000_000);
  const secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
  await Deno.writeTextFile(
    path,
    prompt("Why does the export hang?", cwd, 0, session) +
      answer(`The export hangs on a lock. ${runaway} Token: ${secret} done`, cwd, 1, session) +
      prompt("And the retry policy for uploads?", cwd, 2, session) +
      answer("Uploads retry five times with exponential backoff.", cwd, 3, session),
  );
  const store = join(tmp.path, "store");
  let cairn = await open(store);
  try {
    const report = await cairn.sessions.ingest({ path, agent: "claude" });
    assert.equal(report.added, 2);
    await cairn.store.runner.settled();
    const hits = cairn.text.search("export hangs lock", { sources: ["turn"], limit: 5 });
    assert.ok(hits.length > 0);
    const texts = cairn.text.search("retry uploads backoff", { sources: ["turn"], limit: 5 });
    assert.ok(texts.length > 0);
  } finally {
    await cairn.close();
  }
  const blobs = join(store, "blobs");
  let largest = 0;
  for await (const file of filesUnder(blobs)) {
    const text = await Deno.readTextFile(file);
    largest = Math.max(largest, text.length);
    assert.ok(!text.includes(secret), "the secret past the cut is redacted or left out");
  }
  assert.ok(largest <= MAX_TURN_CHARS + 100, `a turn keeps at most ${MAX_TURN_CHARS}: ${largest}`);
  cairn = await open(store);
  try {
    for (const { name, lag } of cairn.store.runner.status()) assert.equal(lag, 0, name);
    assert.ok(cairn.vectors.counts().turn >= 2);
    assert.ok(
      cairn.vectors.counts().turn < 200,
      "the runaway turn has a bounded number of windows",
    );
  } finally {
    await cairn.close();
  }
});

Deno.test("a transcript line over 16 MiB is skipped unparsed and counted; the turns around it are ingested", async () => {
  await using tmp = await tempDir();
  const cwd = join(tmp.path, "shop");
  await Deno.mkdir(join(cwd, ".git"), { recursive: true });
  const path = join(tmp.path, "huge.jsonl");
  await Deno.writeTextFile(
    path,
    prompt("Why is the nightly export slow?", cwd, 0) +
      answer("z".repeat(MAX_LINE_CHARS + 1), cwd, 1) +
      answer("The export scans the whole ledger table each night.", cwd, 2),
  );
  const cairn = await open(join(tmp.path, "store"));
  try {
    const report = await cairn.sessions.ingest({ path, agent: "claude" });
    assert.equal(report.oversizedLines, 1);
    assert.equal(report.added, 1);
    const hits = cairn.text.search("ledger table nightly", { sources: ["turn"], limit: 5 });
    assert.equal(hits.length, 1);
  } finally {
    await cairn.close();
  }
});
