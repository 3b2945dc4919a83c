import assert from "node:assert/strict";
import { join } from "node:path";
import type { Cairn } from "../../src/service/cairn.ts";
import { compactStore } from "../../src/service/compact.ts";
import { checkProjections } from "../../src/service/projection_check.ts";
import { runCli } from "../../src/cli/main.ts";
import { openWithFakeModel as open } from "./fake_cairn.ts";
import { filesHolding, tempDir } from "../helpers.ts";

const SECRET = "sk-SECRET-12345";

/** A store with a secret among other memories, a small graph and an indexed folder. */
async function fill(cairn: Cairn, root: string): Promise<string> {
  await cairn.memories.remember({ content: "Deploys go out on Tuesdays after the billing freeze" });
  await cairn.memories.remember({ content: "The cache layer uses Redis with a five minute TTL" });
  const secret = await cairn.memories.remember({
    content: `The staging token is ${SECRET}; rotate it monthly`,
    tags: [SECRET],
    entities: [`token ${SECRET}`],
  });
  await cairn.entities.createEntities([
    { name: "billing", entityType: "service" },
    { name: "Redis", entityType: "database" },
  ]);
  await cairn.entities.createRelations([{ from: "billing", to: "Redis", relationType: "uses" }]);
  const repo = join(root, "shop");
  await Deno.mkdir(repo, { recursive: true });
  await Deno.writeTextFile(
    join(repo, "pay.py"),
    "def charge(amount):\n    # charge the card for the amount, in cents\n    return amount\n",
  );
  await cairn.code.index({ path: repo, project: "shop" });
  await cairn.store.runner.settled();
  return secret.memory.id;
}

/** What a user of the store can still find once the secret is gone. */
async function assertStillAnswers(cairn: Cairn): Promise<void> {
  const hits = cairn.text.search("Redis TTL", { sources: ["memory"], limit: 5 });
  assert.equal(hits.length, 1);
  const recalled = await cairn.recall.run({
    query: "when do deploys go out?",
    project: null,
    sources: ["memory", "code"],
    limit: 5,
    mode: "lexical",
  });
  const first = recalled.items[0];
  assert.ok(first?.type === "memory" && first.memory.content.startsWith("Deploys go out"));
  const code = await cairn.recall.run({
    query: "charge the card",
    project: null,
    sources: ["code"],
    limit: 5,
    mode: "lexical",
  });
  assert.deepEqual(
    code.items.map((item) => item.type === "code" && item.code.text.includes("in cents")),
    [true],
    "the chunk's text, kept in a blob",
  );
  const graph = await cairn.entities.readGraph();
  assert.deepEqual(graph.entities.map((e) => e.name), ["Redis", "billing"]);
  assert.deepEqual(graph.relations, [{ from: "billing", to: "Redis", relationType: "uses" }]);
}

Deno.test("a purge leaves no copy of the memory in any file of the store, and the rest still answers", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const cairn = await open(store);
  try {
    const secret = await fill(cairn, tmp.path);
    assert.ok((await filesHolding(store, SECRET)).length > 0, "the secret starts on disk");
    await cairn.memories.forget(secret, { purge: true });
    await cairn.store.runner.settled();
    assert.deepEqual(await filesHolding(store, SECRET), [], "gone while the store is still open");
    assert.equal(await cairn.memories.get(secret), undefined);
    await assertStillAnswers(cairn);
  } finally {
    await cairn.close();
  }
  assert.deepEqual(await filesHolding(store, SECRET), []);
  const reopened = await open(store);
  try {
    await assertStillAnswers(reopened);
    const digests = await reopened.store.runner.digests();
    await reopened.store.runner.rebuild();
    assert.deepEqual(await reopened.store.runner.digests(), digests, "the same as a replay");
  } finally {
    await reopened.close();
  }
});

Deno.test("two purges asked at once both finish, one after the other, and leave no marker", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const cairn = await open(store);
  try {
    const first = await cairn.memories.remember({ content: "the first secret is hunter2" });
    const second = await cairn.memories.remember({ content: "the second secret is swordfish" });
    await Promise.all([
      cairn.memories.forget(first.memory.id, { purge: true }),
      cairn.memories.forget(second.memory.id, { purge: true }),
    ]);
    await cairn.store.runner.settled();
    assert.deepEqual(await filesHolding(store, "hunter2"), []);
    assert.deepEqual(await filesHolding(store, "swordfish"), []);
    assert.equal(await Deno.stat(join(store, "purge.pending")).catch(() => undefined), undefined);
  } finally {
    await cairn.close();
  }
});

Deno.test("a purge that fails after the log is rewritten leaves the projections to be rebuilt on the next open", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const snapshot = join(store, "projections", "text", "snapshot.jsonl");
  const cairn = await open(store);
  try {
    const secret = await fill(cairn, tmp.path);
    // A folder where the lexical index's snapshot goes: writing it fails, as a crash would stop it.
    await Deno.mkdir(join(snapshot, "in-the-way"), { recursive: true });
    await assert.rejects(
      () => cairn.memories.forget(secret, { purge: true }),
      /gone from the log, but rewriting the projections failed: .*next time the store opens/,
    );
    await cairn.memories.remember({ content: "Written after the failed purge" });
    const checkpoints = ["graph", "text"].map((name) =>
      join(store, "projections", name, "checkpoint.json")
    );
    for (const path of checkpoints) {
      await assert.rejects(() => Deno.stat(path), Deno.errors.NotFound, `${path} stays off disk`);
    }
  } finally {
    await cairn.close();
  }
  await Deno.remove(snapshot, { recursive: true });
  const reopened = await open(store);
  try {
    assert.deepEqual(await filesHolding(store, SECRET), []);
    await assertStillAnswers(reopened);
    assert.equal(reopened.text.search("failed purge", { sources: ["memory"], limit: 5 }).length, 1);
  } finally {
    await reopened.close();
  }
});

Deno.test("compaction leaves alone the blobs a writer holds until its events are in the log", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const cairn = await open(store);
  try {
    await cairn.memories.remember({ content: "Deploys go out on Tuesdays" });
    const held = await cairn.store.blobs.hold(["def charge(amount): return amount"]);
    const [hash] = held.hashes;
    const writtenBefore = new Date(Date.now() - 60_000);
    await Deno.utime(join(store, "blobs", hash!.slice(0, 2), hash!), writtenBefore, writtenBefore);
    await compactStore(cairn.store);
    assert.equal(await cairn.store.blobs.has(hash!), true, "held: its event is on the way");
    held[Symbol.dispose]();
    await compactStore(cairn.store);
    assert.equal(await cairn.store.blobs.has(hash!), false, "released and named by no event");
  } finally {
    await cairn.close();
  }
});

Deno.test("a purge cut by a crash between its event and its compaction is named by verify and finished by the next open", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const cairn = await open(store);
  let secret: string;
  try {
    secret = await fill(cairn, tmp.path);
    // What `forget --purge` does up to the crash: its marker, then its events; no compaction.
    await Deno.writeTextFile(join(store, "purge.pending"), "");
    await cairn.store.append([
      { type: "memory.forgotten", v: 1, data: { id: secret } },
      { type: "memory.purged", v: 1, data: { id: secret } },
    ]);
  } finally {
    await cairn.close();
  }
  assert.ok((await filesHolding(store, SECRET)).length > 0, "the secret is still in the log");
  const out: string[] = [];
  const io = { out: (line: string) => out.push(line), err: (line: string) => out.push(line) };
  assert.equal(await runCli(["--store", store, "verify"], io), 1);
  assert.ok(
    out.some((line) => line.includes(`purge of memory ${secret!} did not finish`)),
    out.join("\n"),
  );
  const reopened = await open(store);
  try {
    assert.deepEqual(await filesHolding(store, SECRET), []);
    await assertStillAnswers(reopened);
  } finally {
    await reopened.close();
  }
  out.length = 0;
  assert.equal(await runCli(["--store", store, "verify"], io), 0, out.join("\n"));

  // A team's store writes the purge again for the others once the memory's events are gone.
  const again = await open(store);
  try {
    await again.store.append([{ type: "memory.purged", v: 1, data: { id: secret! } }]);
  } finally {
    await again.close();
  }
  out.length = 0;
  assert.equal(await runCli(["--store", store, "verify"], io), 0, out.join("\n"));
});

Deno.test("a purge and a removal the vectors have not read yet leave no vector behind once compaction drops them", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  await Deno.mkdir(repo);
  for (let i = 0; i < 40; i++) {
    await Deno.writeTextFile(join(repo, `m${i}.py`), `def handler_${i}():\n    return ${i}\n`);
  }
  const store = join(tmp.path, "store");
  const cairn = await open(store);
  try {
    await cairn.store.runner.withBackgroundPaused(async () => {
      await cairn.code.index({ path: repo, project: "repo" });
      const { memory } = await cairn.memories.remember({ content: `The token is ${SECRET}` });
      // One batch of the backlog: the first files, and the memory taken ahead of the rest.
      await cairn.vectors.apply((await Array.fromAsync(cairn.store.log.read(1))).slice(0, 16));
      assert.equal(cairn.vectors.counts().memory, 1);
      await Deno.remove(join(repo, "m0.py"));
      await cairn.code.index({ path: repo, project: "repo" });
      await cairn.memories.forget(memory.id, { purge: true });
      assert.equal(cairn.vectors.counts().memory, 0, "the purge's compaction dropped the vector");
    });
    await cairn.store.runner.settled();
    assert.deepEqual(cairn.vectors.counts(), { memory: 0, code: 39, turn: 0, entity: 0 });
  } finally {
    await cairn.close();
  }
  assert.deepEqual(await checkProjections(store), {
    checked: ["graph", "text", "vectors", "code_catalog", "session_state", "memory_history"],
    problems: [],
  });
});

Deno.test("a purge keeps the observations added since to the entities the memory made", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const cairn = await open(store);
  try {
    const { memory } = await cairn.memories.remember({
      content: `Feature flags are served by Unleash; its token is ${SECRET}`,
      entities: ["Unleash", `token ${SECRET}`],
      relations: [{ from: "Vault", to: "Consul", relation_type: "integrates_with" }],
    });
    await cairn.entities.addObservations([
      { entityName: "Unleash", contents: ["Runs three replicas"] },
      { entityName: "Vault", contents: ["Unsealed with 3 of 5 key shares"] },
    ]);
    await cairn.memories.forget(memory.id, { purge: true });
    await cairn.store.runner.settled();
    const graph = await cairn.entities.readGraph();
    assert.deepEqual(graph.entities.map((e) => [e.name, e.observations]), [
      ["Unleash", ["Runs three replicas"]],
      ["Vault", ["Unsealed with 3 of 5 key shares"]],
    ], "an entity with facts of its own stays; one the memory alone named goes");
    assert.deepEqual(graph.relations, [], "the memory's own relation goes with it");
    assert.deepEqual(await filesHolding(store, SECRET), []);
    assert.deepEqual(
      cairn.text.search("replicas key shares", { sources: ["entity"], limit: 5 }).map((h) => h.id)
        .sort(),
      ["Unleash", "Vault"],
    );
    const digests = await cairn.store.runner.digests();
    await cairn.store.runner.rebuild();
    assert.deepEqual(await cairn.store.runner.digests(), digests, "the same as a replay");
  } finally {
    await cairn.close();
  }
});
