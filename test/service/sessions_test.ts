import assert from "node:assert/strict";
import { basename, join } from "node:path";
import type { EventOf, StoredEvent } from "../../events/schema.ts";
import { Sessions } from "../../src/service/sessions.ts";
import { Store } from "../../src/service/store.ts";
import { collect, tempDir } from "../helpers.ts";
import { answer, prompt, SESSION, tool } from "./claude_lines.ts";

async function open(dir: string) {
  const store = await Store.open(join(dir, "store"));
  return { store, sessions: new Sessions(store), [Symbol.asyncDispose]: () => store.close() };
}

async function eventsAfter(store: Store, seq: number): Promise<StoredEvent[]> {
  return (await collect(store.log.read())).filter((event) => event.seq > seq);
}

const ingested = (events: StoredEvent[]) =>
  events.filter((e): e is EventOf<"turn.ingested"> & StoredEvent => e.type === "turn.ingested");

Deno.test("Sessions.ingest() replaces the provisional last turn, with its mentions, when the session goes on", async () => {
  await using tmp = await tempDir();
  const cwd = join(tmp.path, "shop");
  await Deno.mkdir(join(cwd, ".git"), { recursive: true });
  const path = join(tmp.path, `${SESSION}.jsonl`);
  await Deno.writeTextFile(
    path,
    prompt("Why is checkout slow?", cwd, 0) +
      tool("Read", { file_path: `${cwd}/src/a.ts` }, cwd, 1),
  );
  await using cairn = await open(tmp.path);
  const first = await cairn.sessions.ingest({ path, agent: "claude" });
  assert.equal(first.added, 1);
  const [turn] = ingested(await eventsAfter(cairn.store, 0));
  assert.deepEqual(
    { ...turn!.data, text: "…" },
    {
      agent: "claude",
      session: SESSION,
      line: 0,
      project: "shop",
      started_at: "2026-02-01T10:00:00.000Z",
      provisional: true,
      text: "…",
      mentions: [{ path: "src/a.ts", absolute: `${cwd}/src/a.ts`, tool: "Read" }],
    },
  );
  const head = cairn.store.log.head;

  await Deno.writeTextFile(
    path,
    tool("Edit", { file_path: `${cwd}/src/b.ts` }, cwd, 2) +
      answer("Fixed the N+1 query.", cwd, 3) +
      prompt("Now add a test", cwd, 4),
    { append: true },
  );
  const second = await cairn.sessions.ingest({ path, agent: "claude" });
  assert.deepEqual([second.added, second.replaced, second.unchanged], [1, 1, 0]);
  const events = await eventsAfter(cairn.store, head);
  assert.deepEqual(events.map((e) => e.type), [
    "turn.retracted",
    "turn.ingested",
    "turn.ingested",
    "transcript.advanced",
  ]);
  assert.deepEqual(events[0]!.data, { session: SESSION, line: 0 });
  const [replaced, next] = ingested(events);
  assert.equal(replaced!.data.line, 0);
  assert.equal(replaced!.data.provisional, false);
  assert.deepEqual(replaced!.data.mentions.map((m) => `${m.tool} ${m.path}`), [
    "Read src/a.ts",
    "Edit src/b.ts",
  ]);
  assert.equal(
    await cairn.store.blobs.get(replaced!.data.text),
    "User: Why is checkout slow?\n→ Read src/a.ts\n→ Edit src/b.ts\nAssistant: Fixed the N+1 query.",
  );
  assert.deepEqual([next!.data.line, next!.data.provisional], [4, true]);
  const text = await Deno.readTextFile(path);
  const offset = new TextEncoder().encode(text.slice(0, text.indexOf('"Now add a test"'))).length;
  const advanced = events[3] as EventOf<"transcript.advanced">;
  assert.equal(advanced.data.path, path);
  assert.ok(advanced.data.offset > 0 && advanced.data.offset < offset);
});

Deno.test("Sessions.ingest() of an unchanged transcript appends nothing and reads only its last turn", async () => {
  await using tmp = await tempDir();
  const cwd = join(tmp.path, "p");
  const path = join(tmp.path, "t.jsonl");
  let text = "";
  for (let i = 0; i < 50; i++) {
    text += prompt(`question ${i}`, cwd, i) + answer(`answer ${i} `.repeat(20), cwd, i);
  }
  await Deno.writeTextFile(path, text);
  {
    await using cairn = await open(tmp.path);
    assert.equal((await cairn.sessions.ingest({ path, agent: "claude" })).added, 50);
  }
  // A new process: what it knows comes from the log.
  await using cairn = await open(tmp.path);
  const head = cairn.store.log.head;
  const again = await cairn.sessions.ingest({ path, agent: "claude" });
  assert.equal(cairn.store.log.head, head);
  assert.deepEqual([again.added, again.replaced, again.unchanged], [0, 0, 1]);
  assert.ok(again.bytesRead < text.length / 40, `read ${again.bytesRead} of ${text.length} bytes`);
});

Deno.test("Sessions.ingest() leaves a half-written last line for the next ingest", async () => {
  await using tmp = await tempDir();
  const cwd = join(tmp.path, "p");
  const path = join(tmp.path, "t.jsonl");
  const last = answer("All done.", cwd, 2);
  await Deno.writeTextFile(path, prompt("Do it", cwd, 0) + last.slice(0, 40));
  await using cairn = await open(tmp.path);
  const torn = await cairn.sessions.ingest({ path, agent: "claude" });
  assert.equal(torn.partialLine, true);
  assert.equal(torn.added, 1);
  await Deno.writeTextFile(path, last.slice(40), { append: true });
  const whole = await cairn.sessions.ingest({ path, agent: "claude", final: true });
  assert.deepEqual([whole.partialLine, whole.replaced], [false, 1]);
  const [, turn] = ingested(await eventsAfter(cairn.store, 0));
  assert.equal(turn!.data.provisional, false);
  assert.equal(await cairn.store.blobs.get(turn!.data.text), "User: Do it\nAssistant: All done.");
});

Deno.test("Sessions.ingest() stores no secret and no <private> text", async () => {
  await using tmp = await tempDir();
  await using cairn = await open(tmp.path);
  const path = new URL("../fixtures/transcripts/claude-secrets.jsonl", import.meta.url).pathname;
  const report = await cairn.sessions.ingest({ path, agent: "claude" });
  assert.equal(report.redactions, 5);
  const [turn] = ingested(await eventsAfter(cairn.store, 0));
  const text = await cairn.store.blobs.get(turn!.data.text);
  for (const secret of ["sk-proj", "s3cretPass", "ghp_", "hunter22", "internal note"]) {
    assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
  }
  assert.match(text, /postgres:\/\/admin:\[REDACTED\]@db\.internal/);
  assert.deepEqual(turn!.data.mentions.map((m) => `${m.tool} ${m.path}`), [
    "Bash deploy.sh",
    "Bash config/prod.env",
  ]);
});

Deno.test("Sessions.ingest() skips the turns of a project with a .cairn-no-sessions file", async () => {
  await using tmp = await tempDir();
  const cwd = join(tmp.path, "secret-project");
  await Deno.mkdir(join(cwd, ".git"), { recursive: true });
  await Deno.mkdir(join(cwd, "sub"));
  await Deno.writeTextFile(join(cwd, ".cairn-no-sessions"), "");
  const path = join(tmp.path, "t.jsonl");
  await Deno.writeTextFile(path, prompt("hi", join(cwd, "sub"), 0) + answer("hello", cwd, 1));
  await using cairn = await open(tmp.path);
  const report = await cairn.sessions.ingest({ path, agent: "claude" });
  assert.deepEqual([report.added, report.optedOut], [0, 1]);
  assert.equal(cairn.store.log.head, 0);
});

Deno.test("Sessions.ingest() reads a rewritten transcript again and withdraws the turns it lost", async () => {
  await using tmp = await tempDir();
  const cwd = join(tmp.path, "p");
  const path = join(tmp.path, "t.jsonl");
  await Deno.writeTextFile(
    path,
    prompt("one", cwd, 0) + answer("1", cwd, 1) + prompt("two", cwd, 2) + answer("2", cwd, 3),
  );
  await using cairn = await open(tmp.path);
  await cairn.sessions.ingest({ path, agent: "claude" });
  const head = cairn.store.log.head;
  await Deno.writeTextFile(path, prompt("one", cwd, 0) + answer("1", cwd, 1));
  const report = await cairn.sessions.ingest({ path, agent: "claude" });
  assert.deepEqual([report.removed, report.replaced], [1, 1]);
  const events = await eventsAfter(cairn.store, head);
  assert.deepEqual(
    events.map((
      e,
    ) => [
      e.type,
      (e.data as { line?: number; offset?: number }).line ?? (e.data as { offset?: number }).offset,
    ]),
    [
      ["turn.retracted", 0],
      ["turn.ingested", 0],
      ["turn.retracted", 2],
      ["transcript.advanced", 0],
    ],
  );
});

Deno.test("Sessions.ingest() reads Codex rollouts, resuming after the header", async () => {
  await using tmp = await tempDir();
  const fixture = new URL("../fixtures/transcripts/codex-rollout.jsonl", import.meta.url).pathname;
  const path = join(tmp.path, basename(fixture));
  await Deno.copyFile(fixture, path);
  await using cairn = await open(tmp.path);
  const first = await cairn.sessions.ingest({ path, agent: "codex" });
  assert.deepEqual([first.added, first.session, first.compactions], [
    2,
    "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee",
    [13],
  ]);
  assert.deepEqual(first.unknown, { ghost_snapshot: 1 });
  const head = cairn.store.log.head;
  await Deno.writeTextFile(
    path,
    JSON.stringify({
      timestamp: "2026-02-03T08:00:13.000Z",
      type: "response_item",
      payload: {
        type: "function_call",
        name: "shell",
        arguments: JSON.stringify({ command: ["bash", "-lc", "git add CHANGELOG.md"] }),
        call_id: "c9",
      },
    }) + "\n",
    { append: true },
  );
  const second = await cairn.sessions.ingest({ path, agent: "codex", final: true });
  assert.deepEqual([second.added, second.replaced], [0, 1]);
  const [turn] = ingested(await eventsAfter(cairn.store, head));
  assert.equal(turn!.data.project, "engine");
  assert.deepEqual(turn!.data.mentions.map((m) => `${m.tool} ${m.path}`), [
    "local_shell CHANGELOG.md",
    "shell CHANGELOG.md",
  ]);
});

Deno.test("Sessions.ingest() reads a sub-agent's own file into its parent's session, apart from the parent's turns", async () => {
  await using tmp = await tempDir();
  const fixture = new URL("../fixtures/transcripts/claude-subagents/shop/", import.meta.url);
  const parentId = "7a1c2e40-5b3d-4e8f-9a61-2c0d4b8e1f37";
  const parent = join(tmp.path, `${parentId}.jsonl`);
  const folder = join(tmp.path, parentId, "subagents");
  const sub = join(folder, "agent-a3f9c1e.jsonl");
  await Deno.mkdir(folder, { recursive: true });
  await Deno.copyFile(new URL(`${parentId}.jsonl`, fixture), parent);
  await Deno.copyFile(new URL(`${parentId}/subagents/agent-a3f9c1e.jsonl`, fixture), sub);
  await using cairn = await open(tmp.path);
  await cairn.sessions.ingest({ path: parent, agent: "claude" });
  const report = await cairn.sessions.ingest({ path: sub, agent: "claude" });
  assert.deepEqual([report.session, report.added], [`${parentId}/agent-a3f9c1e`, 1]);
  const turns = ingested(await eventsAfter(cairn.store, 0));
  assert.deepEqual(turns.map((t) => [t.data.session, t.data.line]), [
    [parentId, 0],
    [`${parentId}/agent-a3f9c1e`, 0],
  ]);
  const subTurn = turns[1]!.data;
  assert.deepEqual(subTurn.mentions.map((m) => `${m.tool} ${m.path}`), [
    "Grep src",
    "Read src/tax_rules.py",
    "Bash docs/tax.md",
  ]);
  assert.equal(subTurn.project, "shop");
  assert.match(await cairn.store.blobs.get(subTurn.text), /^Sub-agent task: Find where the tax/);
  assert.match(await cairn.store.blobs.get(subTurn.text), /Assistant: Tax is computed per line/);

  const head = cairn.store.log.head;
  const again = await cairn.sessions.ingest({ path: sub, agent: "claude" });
  assert.deepEqual(
    [again.unchanged, cairn.store.log.head],
    [1, head],
    "unchanged: nothing written",
  );

  // A resumed sub-agent appends a task: read from its last turn on, like any transcript.
  await Deno.writeTextFile(
    sub,
    JSON.stringify({
      type: "user",
      isSidechain: true,
      agentId: "a3f9c1e",
      sessionId: parentId,
      cwd: "/home/dev/shop",
      timestamp: "2026-03-04T09:05:00.000Z",
      message: { role: "user", content: "Now check the credit notes too." },
    }) + "\n",
    { append: true },
  );
  const resumed = await cairn.sessions.ingest({ path: sub, agent: "claude" });
  assert.deepEqual([resumed.added, resumed.replaced], [1, 1]);
  assert.deepEqual(
    ingested(await eventsAfter(cairn.store, head)).map((t) => [t.data.session, t.data.line]),
    [[`${parentId}/agent-a3f9c1e`, 0], [`${parentId}/agent-a3f9c1e`, 8]],
  );
});

Deno.test("Sessions.ingest() names a sub-agent's session after its folder when its records carry none", async () => {
  await using tmp = await tempDir();
  const folder = join(tmp.path, "parent-session", "subagents");
  await Deno.mkdir(folder, { recursive: true });
  const path = join(folder, "agent-b0b.jsonl");
  const record = JSON.parse(prompt("List the tests", "/home/dev/shop", 0));
  delete record.sessionId;
  await Deno.writeTextFile(path, JSON.stringify({ ...record, isSidechain: true }) + "\n");
  await using cairn = await open(tmp.path);
  const report = await cairn.sessions.ingest({ path, agent: "claude" });
  assert.deepEqual([report.session, report.added], ["parent-session/agent-b0b", 1]);
});

Deno.test("Sessions.ingest() files a session under the project its code is indexed as, worktrees too", async () => {
  await using tmp = await tempDir();
  const main = join(tmp.path, "shop");
  const worktree = join(tmp.path, "shop-hotfix");
  const other = join(tmp.path, "scratch");
  await Deno.mkdir(join(main, ".git", "worktrees", "shop-hotfix"), { recursive: true });
  await Deno.mkdir(join(worktree, "src"), { recursive: true });
  await Deno.writeTextFile(
    join(worktree, ".git"),
    `gitdir: ${join(main, ".git", "worktrees", "shop-hotfix")}\n`,
  );
  await Deno.mkdir(other);
  const store = await Store.open(join(tmp.path, "store"));
  let indexed: Array<{ name: string; root: string; gitRoot?: string }> = [];
  const sessions = new Sessions(store, () => Promise.resolve(indexed));
  const projectsOf = async (name: string, cwd: string, root = cwd) => {
    const path = join(tmp.path, `${name}.jsonl`);
    const session = crypto.randomUUID();
    await Deno.writeTextFile(
      path,
      prompt("Where is the cart total computed?", cwd, 0, session) +
        tool("Read", { file_path: `${root}/src/cart.ts` }, cwd, 1, session),
    );
    const head = store.log.head;
    await sessions.ingest({ path, agent: "claude" });
    return ingested(await eventsAfter(store, head)).map((turn) =>
      `${turn.data.project} ${turn.data.mentions[0]?.path}`
    );
  };
  try {
    assert.deepEqual(
      await projectsOf("a", join(worktree, "src"), worktree),
      ["shop src/cart.ts"],
      "a worktree is its repository's project, paths from its own root",
    );
    indexed = [{ name: "storefront", root: main, gitRoot: main }];
    assert.deepEqual(await projectsOf("b", join(worktree, "src"), worktree), [
      "storefront src/cart.ts",
    ]);
    assert.deepEqual(await projectsOf("c", main), ["storefront src/cart.ts"]);
    assert.deepEqual(await projectsOf("d", other), ["scratch src/cart.ts"]);
  } finally {
    await store.close();
  }
});
