import assert from "node:assert/strict";
import { join } from "node:path";
import { openCairn } from "../../src/service/cairn.ts";
import { UserError } from "../../src/errors.ts";
import { describeDifferences } from "../../text/fact_differences.ts";
import { formatMarkdown } from "../../src/ops/format.ts";
import { openHandle } from "../../src/service/open_item.ts";
import { collect, tempDir } from "../helpers.ts";
import "../embed/shared_model.ts";

async function withStore(test: (cairn: Awaited<ReturnType<typeof openCairn>>) => Promise<void>) {
  await using tmp = await tempDir();
  const cairn = await openCairn(tmp.path);
  try {
    await test(cairn);
  } finally {
    await cairn.close();
  }
}

Deno.test("Memories.remember() appends one memory.remembered event and the memory can be read back", () =>
  withStore(async (cairn) => {
    const { memory, duplicate } = await cairn.memories.remember({
      content: "Use pnpm, not npm, in this repo",
      kind: "preference",
      tags: ["tooling"],
      project: "web",
    });
    assert.equal(duplicate, false);
    const events = await collect(cairn.store.log.read());
    assert.deepEqual(events.map((e) => e.type), ["memory.remembered"]);
    assert.deepEqual(await cairn.memories.get(memory.id), memory);
    assert.equal(memory.project, "web");
  }));

Deno.test("Memories.remember() returns the existing memory for the same text in the same project", () =>
  withStore(async (cairn) => {
    const first = await cairn.memories.remember({
      content: "Deploys run on Tuesdays.",
      project: "ops",
    });
    const again = await cairn.memories.remember({
      content: "  deploys run on TUESDAYS. ",
      project: "ops",
    });
    assert.equal(again.duplicate, true);
    assert.equal(again.memory.id, first.memory.id);
    const elsewhere = await cairn.memories.remember({
      content: "Deploys run on Tuesdays.",
      project: "web",
    });
    assert.equal(elsewhere.duplicate, false);
    const forced = await cairn.memories.remember({
      content: "Deploys run on Tuesdays.",
      project: "ops",
      force: true,
    });
    assert.equal(forced.duplicate, false);
    assert.equal((await collect(cairn.store.log.read())).length, 3);
  }));

Deno.test("Memories.revise() keeps history in the log and changes what get() returns", () =>
  withStore(async (cairn) => {
    const { memory } = await cairn.memories.remember({ content: "Cache TTL is 5 minutes" });
    const { memory: revised, changed } = await cairn.memories.revise({
      id: memory.id,
      content: "Cache TTL is 10 minutes",
      tags: ["cache"],
    });
    assert.equal(changed, true);
    assert.equal(revised.content, "Cache TTL is 10 minutes");
    assert.deepEqual(revised.tags, ["cache"]);
    // The same text and tags again change nothing, and write nothing.
    const same = await cairn.memories.revise({
      id: memory.id,
      content: "Cache TTL is 10 minutes",
      tags: ["cache"],
    });
    assert.deepEqual([same.changed, same.memory.content], [false, "Cache TTL is 10 minutes"]);
    const types = (await collect(cairn.store.log.read())).map((e) => e.type);
    assert.deepEqual(types, ["memory.remembered", "memory.revised"]);
    await assert.rejects(() => cairn.memories.revise({ id: memory.id }), UserError);
    await assert.rejects(
      () => cairn.memories.revise({ id: "mem_nope", content: "x" }),
      /no memory with id mem_nope/,
    );
  }));

Deno.test("Memories.forget() hides a memory from list(); --purge removes its content from the log", () =>
  withStore(async (cairn) => {
    const keep = await cairn.memories.remember({ content: "Keep me" });
    const secret = await cairn.memories.remember({ content: "The staging password is hunter2" });
    const other = await cairn.memories.remember({ content: "Forget me softly" });
    await cairn.memories.forget(other.memory.id, { reason: "outdated" });
    assert.deepEqual((await cairn.memories.list()).map((m) => m.id), [
      secret.memory.id,
      keep.memory.id,
    ]);
    assert.equal((await cairn.memories.list({ include_forgotten: true })).length, 3);
    await cairn.memories.forget(secret.memory.id, { purge: true });
    const log = JSON.stringify(await collect(cairn.store.log.read()));
    assert.doesNotMatch(log, /hunter2/);
    assert.equal(await cairn.memories.get(secret.memory.id), undefined);
    assert.ok(await cairn.memories.get(other.memory.id));
  }));

Deno.test("Memories.list() filters by project (globals included), kind and tag, newest first", () =>
  withStore(async (cairn) => {
    await cairn.memories.remember({ content: "global rule", kind: "pattern" });
    await cairn.memories.remember({ content: "api fact", project: "api", tags: ["http"] });
    await cairn.memories.remember({ content: "web fact", project: "web" });
    const api = await cairn.memories.list({ project: "api" });
    assert.deepEqual(api.map((m) => m.content), ["api fact", "global rule"]);
    assert.deepEqual((await cairn.memories.list({ kind: "pattern" })).map((m) => m.content), [
      "global rule",
    ]);
    assert.deepEqual((await cairn.memories.list({ tag: "http" })).map((m) => m.content), [
      "api fact",
    ]);
    assert.equal((await cairn.memories.list({ limit: 1, offset: 1 }))[0]!.content, "api fact");
  }));

Deno.test("Memories.remember() refuses empty or oversized content with a readable error", () =>
  withStore(async (cairn) => {
    await assert.rejects(() => cairn.memories.remember({ content: "   " }), /content is empty/);
    await assert.rejects(() => cairn.memories.remember({ content: "x".repeat(70_000) }));
    await assert.rejects(
      () => cairn.memories.remember({ content: "x", valid_from: "yesterday" }),
      /ISO 8601/,
    );
    assert.equal(cairn.store.log.head, 0);
  }));

Deno.test("Memories.remember() treats a near-identical memory (cosine ≥ 0.98, same numbers) in the same project as known", () =>
  withStore(async (cairn) => {
    const first = await cairn.memories.remember({
      content: "The staging database runs PostgreSQL 16 on port 5433.",
      project: "ops",
    });
    await cairn.store.runner.settled();
    const reworded = await cairn.memories.remember({
      content: "The staging database runs PostgreSQL 16 on port 5433!",
      project: "ops",
    });
    assert.equal(reworded.duplicate, true);
    assert.equal(reworded.memory.id, first.memory.id);
    const different = await cairn.memories.remember({
      content: "Production runs PostgreSQL 15.",
      project: "ops",
    });
    assert.equal(different.duplicate, false);
    const otherPort = await cairn.memories.remember({
      content: "The staging database runs PostgreSQL 16 on port 5434.",
      project: "ops",
    });
    assert.equal(otherPort.duplicate, false, "a different number is a different fact");
    const elsewhere = await cairn.memories.remember({
      content: "The staging database runs PostgreSQL 16 on port 5433!",
      project: "web",
    });
    assert.equal(elsewhere.duplicate, false);
  }));

Deno.test("Memories.remember() stores a memory that may contradict a close one of its project, and names that one", () =>
  withStore(async (cairn) => {
    const stored: Record<string, string> = {};
    for (
      const [project, content] of [
        ["py", "We use black for formatting"],
        ["hooks", "Retry failed webhooks 5 times"],
        ["web", "Cache sessions in Redis"],
      ]
    ) stored[project!] = (await cairn.memories.remember({ content: content!, project })).memory.id;
    await cairn.store.runner.settled();
    const named = async (content: string, project: string) => {
      const { duplicate, contradictions } = await cairn.memories.remember({ content, project });
      assert.equal(duplicate, false, content);
      await cairn.store.runner.settled();
      return contradictions.map(({ memory, differences }) =>
        `${memory.id}: ${describeDifferences(differences)}`
      );
    };

    assert.deepEqual(await named("Formatting is done with black", "py"), [], "a paraphrase");
    assert.deepEqual(await named("Deploys run on Tuesdays", "py"), [], "an unrelated memory");
    assert.deepEqual(await named("We use ruff for formatting", "other"), [], "another project");
    assert.deepEqual(await named("We use ruff for formatting", "py"), [
      `${stored.py}: names differ (black vs ruff)`,
    ]);
    assert.deepEqual(await named("Retry failed webhooks 7 times", "hooks"), [
      `${stored.hooks}: numbers differ (5 vs 7)`,
    ]);
    assert.deepEqual(await named("Do not cache sessions in Redis", "web"), [
      `${stored.web}: negation differs (none vs not)`,
    ]);
    // A name swapped that moves the sentence further (0.78 with the shipped model), and a
    // related memory about another part that is no replacement (0.745).
    const go = await cairn.memories.remember({
      content: "The search service is written in Go",
      project: "lang",
    });
    assert.deepEqual(await named("The search service is written in Rust", "lang"), [
      `${go.memory.id}: names differ (Go vs Rust)`,
    ]);
    await cairn.memories.remember({ content: "The frontend is built with Vite", project: "ui" });
    assert.deepEqual(await named("The backend is built with Go", "ui"), [], "another part");
    await cairn.memories.forget(stored.hooks!);
    const hooks = await named("Retry failed webhooks 9 times", "hooks");
    assert.equal(hooks.length, 1, "the 7 times is named, not the forgotten 5 times");
    assert.match(hooks[0]!, /numbers differ \(7 vs 9\)/);
  }));

Deno.test("Memories.remember() names a contradiction with a memory remembered a moment before, whose vector is not in yet", () =>
  withStore(async (cairn) => {
    await cairn.store.runner.withBackgroundPaused(async () => {
      const { memory: first } = await cairn.memories.remember({
        content: "The build cache is purged every 7 days",
        project: "ci",
      });
      const checkpoint = cairn.store.runner.status().find((p) => p.name === "vectors")!.checkpoint;
      assert.deepEqual(
        await cairn.vectors.waitingMemories(checkpoint),
        [first.id],
        "no vector yet",
      );
      const { contradictions } = await cairn.memories.remember({
        content: "The build cache is purged every 14 days",
        project: "ci",
      });
      assert.deepEqual(
        contradictions.map(({ memory, differences }) =>
          `${memory.id}: ${describeDifferences(differences)}`
        ),
        [`${first.id}: numbers differ (7 vs 14)`],
      );
      const elsewhere = await cairn.memories.remember({
        content: "The build cache is purged every 21 days",
        project: "web",
      });
      assert.deepEqual(elsewhere.contradictions, [], "another project's are not compared");
    });
  }));

Deno.test("Memories.remember() called twice at once stores the text once, and the second names the first's contradiction", () =>
  withStore(async (cairn) => {
    const text = { content: "Log retention for the worker is 90 days", project: "ops" };
    const [a, b] = await Promise.all([
      cairn.memories.remember(text),
      cairn.memories.remember(text),
    ]);
    assert.deepEqual([a.duplicate, b.duplicate], [false, true]);
    assert.equal(b.memory.id, a.memory.id);
    assert.equal((await cairn.memories.list({ project: "ops" })).length, 1);
    const [, thirty] = await Promise.all([
      cairn.memories.remember({
        content: "The backup job keeps 14 days of snapshots",
        project: "ops",
      }),
      cairn.memories.remember({
        content: "The backup job keeps 30 days of snapshots",
        project: "ops",
      }),
    ]);
    assert.deepEqual(
      thirty.contradictions.map(({ differences }) => describeDifferences(differences)),
      ["numbers differ (14 vs 30)"],
    );
  }));

Deno.test("as_of leaves out the session turns that started later, and says that code is as it is now", async () => {
  await using tmp = await tempDir();
  const cairn = await openCairn(tmp.path);
  try {
    const text = "User: why did the upload test flake?\nAssistant: a race on the temp folder";
    await cairn.store.append([{
      type: "turn.ingested",
      v: 1,
      data: {
        agent: "claude",
        session: "s-1",
        line: 0,
        project: "api",
        started_at: "2026-11-20T10:00:00.000Z",
        provisional: false,
        text: await cairn.store.blobs.put(text),
        mentions: [],
      },
    }]);
    await cairn.store.runner.settled();
    const ask = (as_of: string) =>
      cairn.recall.run(
        { query: "upload test flake", sources: ["turn"], limit: 5, mode: "lexical" },
        { as_of },
      );
    const before = await ask("2020-01-01");
    assert.deepEqual(before.items, []);
    assert.match(before.notes.join("\n"), /1 session turn from after then left out/);
    const after = await ask("2026-11-21");
    assert.deepEqual(after.items.map((item) => item.type), ["turn"]);
    assert.doesNotMatch(after.notes.join("\n"), /left out|code as it is/);
    const repo = join(tmp.path, "api");
    await Deno.mkdir(repo);
    await Deno.writeTextFile(join(repo, "upload.py"), "def upload_flake():\n    return 1\n");
    await cairn.code.index({ path: repo, project: "api" });
    await cairn.store.runner.settled();
    const code = await cairn.recall.run(
      { query: "upload_flake", sources: ["code"], limit: 5, mode: "lexical" },
      { as_of: "2020-01-01" },
    );
    assert.deepEqual(code.items.map((item) => item.type), ["code"]);
    assert.match(code.notes.join("\n"), /code as it is indexed now/);
  } finally {
    await cairn.close();
  }
});

Deno.test("as_of answers with what was known then; valid_at keeps what was valid then", async () => {
  await using tmp = await tempDir();
  let now = new Date("2026-01-01T00:00:00Z");
  const cairn = await openCairn(tmp.path, { clock: () => now });
  try {
    const { memory } = await cairn.memories.remember({
      content: "The API rate limit is 100 requests per minute",
      project: "api",
    });
    now = new Date("2026-02-01T00:00:00Z");
    await cairn.memories.revise({
      id: memory.id,
      content: "The API rate limit is 500 requests per minute",
    });
    const old = await cairn.memories.remember({
      content: "Deploys freeze during the holiday",
      project: "api",
      valid_from: "2025-12-20",
      valid_to: "2026-01-05",
    });
    now = new Date("2026-03-01T00:00:00Z");
    await cairn.memories.forget(old.memory.id);
    await cairn.store.runner.settled();

    const january = "2026-01-15T00:00:00Z";
    assert.equal(
      (await cairn.memories.get(memory.id, { as_of: january }))!.content,
      "The API rate limit is 100 requests per minute",
    );
    assert.deepEqual(
      (await cairn.memories.list({ project: "api", as_of: january })).map((m) => m.content),
      [
        "The API rate limit is 100 requests per minute",
      ],
    );
    const february = await cairn.memories.list({ project: "api", as_of: "2026-02-15T00:00:00Z" });
    assert.equal(february.length, 2, "the holiday freeze was still known in February");
    assert.equal(await cairn.memories.get(memory.id, { as_of: "2025-12-31T00:00:00Z" }), undefined);

    const recalled = await cairn.recall.run(
      { query: "API rate limit", project: "api", sources: ["memory"], limit: 5, mode: "lexical" },
      { as_of: january },
    );
    const [first] = recalled.items;
    assert.equal(
      first?.type === "memory" && first.memory.content,
      "The API rate limit is 100 requests per minute",
    );
    assert.match(recalled.notes.join(" "), /as of 2026-01-15/);

    const validNewYear = await cairn.memories.list({
      project: "api",
      valid_at: "2026-01-01",
      include_forgotten: true,
    });
    assert.equal(validNewYear.length, 2);
    const validMarch = await cairn.memories.list({
      project: "api",
      valid_at: "2026-03-01",
      include_forgotten: true,
    });
    assert.deepEqual(validMarch.map((m) => m.id), [memory.id]);
  } finally {
    await cairn.close();
  }
});

Deno.test("recall marks a memory that one stored later may replace, and says which and why", () =>
  withStore(async (cairn) => {
    const { memory: old } = await cairn.memories.remember({
      content: "We format Python code with black",
      project: "web",
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const { memory: newer } = await cairn.memories.remember({
      content: "We format Python code with ruff",
      project: "web",
    });
    await cairn.memories.remember({ content: "The API is served by FastAPI", project: "web" });
    await cairn.store.runner.settled();
    const answer = await cairn.recall.run({
      query: "which formatter do we use for Python?",
      project: "web",
      sources: ["memory"],
      limit: 5,
      mode: "hybrid",
    });
    const marked = answer.items.flatMap((item) =>
      item.type === "memory" && item.newer ? [[item.memory.id, item.newer.memory.id]] : []
    );
    assert.deepEqual(marked, [[old.id, newer.id]], "only the older one, by the newer one");
    const order = answer.items.flatMap((item) => item.type === "memory" ? [item.memory.id] : []);
    assert.equal(order.indexOf(old.id), order.indexOf(newer.id) + 1, "the current one first");
    assert.match(
      formatMarkdown(answer),
      new RegExp(
        `black \\(may be out of date: ${newer.id}, stored \\d{4}-\\d{2}-\\d{2}, names differ \\(black vs ruff\\)\\)`,
      ),
    );
    // Remembering the older text again, or opening it, says the same.
    const again = await cairn.memories.remember({
      content: "We format Python code with black",
      project: "web",
    });
    assert.deepEqual([again.duplicate, again.newer?.memory.id], [true, newer.id]);
    const opened = await openHandle(cairn, old.id);
    assert.equal(opened.type === "memory" && opened.newer?.memory.id, newer.id);
  }));

Deno.test("facts about different things are no contradiction: recall answers with the one asked about, unmarked", () =>
  withStore(async (cairn) => {
    const { memory: billing } = await cairn.memories.remember({
      content: "The billing service listens on port 8081",
      project: "infra",
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const search = await cairn.memories.remember({
      content: "The search service listens on port 8082",
      project: "infra",
    });
    assert.deepEqual(search.contradictions, []);
    await cairn.store.runner.settled();
    const answer = await cairn.recall.run({
      query: "what port does the billing service use",
      project: "infra",
      sources: ["memory"],
      limit: 5,
      mode: "hybrid",
    });
    const first = answer.items[0];
    assert.equal(first?.type === "memory" && first.memory.id, billing.id);
    assert.equal(first?.type === "memory" && first.newer, undefined, "not marked out of date");
  }));

Deno.test("a small limit answers with the current memory, even when the ones it replaced ranked above it", () =>
  withStore(async (cairn) => {
    const stored: string[] = [];
    for (const host of ["db-stg-01", "db-stg-02", "db-stg-03"]) {
      const { memory } = await cairn.memories.remember({
        content: `The staging database runs on host ${host}`,
        project: "infra",
      });
      stored.push(memory.id);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await cairn.store.runner.settled();
    const ask = (limit: number) =>
      cairn.recall.run({
        query: "staging database host db-stg-01 db-stg-02",
        project: "infra",
        sources: ["memory"],
        limit,
        mode: "hybrid",
      });
    const all = (await ask(3)).items.flatMap((item) => item.type === "memory" ? [item] : []);
    assert.equal(all[0]?.memory.id, stored[2], "the current one first");
    for (const limit of [1, 2]) {
      const [first] = (await ask(limit)).items;
      assert.equal(first?.type === "memory" && first.memory.id, stored[2], `limit ${limit}`);
      assert.equal(first?.type === "memory" && first.newer, undefined);
    }
  }));

Deno.test("search by meaning keeps only documents close enough to be evidence", () =>
  withStore(async (cairn) => {
    await cairn.memories.remember({ content: "Retry failed webhooks 5 times", project: "web" });
    await cairn.memories.remember({ content: "We deploy on Fridays after lunch", project: "web" });
    await cairn.store.runner.settled();
    const search = (query: string) =>
      cairn.recall.run({ query, sources: ["memory"], limit: 8, mode: "vector" });
    const related = await search("how many times are webhooks retried?");
    assert.deepEqual(
      related.items.map((item) => item.type === "memory" && item.memory.content),
      ["Retry failed webhooks 5 times"],
      "the deploy memory is too far to count",
    );
    assert.deepEqual((await search("kubernetes helm chart values")).items, []);
  }));
