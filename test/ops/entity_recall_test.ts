import assert from "node:assert/strict";
import { join } from "node:path";
import { localTools } from "../../src/mcp/handlers.ts";
import { openCairn } from "../../src/service/cairn.ts";
import { tempDir } from "../helpers.ts";

Deno.test("recall finds the graph's entities by their facts, and open shows them whole", async () => {
  await using tmp = await tempDir();
  const cairn = await openCairn(join(tmp.path, "store"));
  const caller = { cwd: tmp.path, roots: [tmp.path], agent: true };
  const tools = localTools(cairn);
  const call = async (name: string, args: Record<string, unknown>) => {
    const answer = await tools(name, args, caller);
    return { text: answer.content[0]!.text, data: answer.structuredContent };
  };
  try {
    await call("create_entities", {
      entities: [
        {
          name: "Ada",
          entityType: "person",
          observations: ["Lives in Lyon", "Prefers the Go programming language over Python"],
        },
        {
          name: "billing",
          entityType: "service",
          observations: ["Charges customers every month through Stripe webhooks"],
        },
        { name: "ops:oncall", entityType: "rota", observations: ["Pages whoever is on call"] },
        { name: "mem_zebra", entityType: "animal", observations: ["Has black and white stripes"] },
      ],
    });
    await call("create_relations", {
      relations: [{ from: "Ada", to: "billing", relationType: "maintains" }],
    });
    await call("remember", {
      content: "The Checkout page was redesigned in March",
      project: "shop",
      entities: ["Checkout"],
    });
    await cairn.store.runner.settled();

    const language = await call("recall", { query: "which coding language does Ada like?" });
    assert.match(
      language.text.split("\n")[0]!,
      /^1\. \[entity person Ada\] .*Prefers the Go programming language over Python/,
      language.text,
    );

    const upkeep = await call("recall", {
      query: "who maintains billing",
      project: "shop",
      include: ["graph"],
      format: "json",
    });
    const results = (upkeep.data as { results: Array<Record<string, unknown>> }).results;
    assert.deepEqual(results.map((r) => [r.type, r.name]).slice(0, 2).sort(), [
      ["entity", "Ada"],
      ["entity", "billing"],
    ], "entities are found from any project");
    assert.deepEqual(results.find((r) => r.name === "Ada")?.relations, [
      ["Ada", "maintains", "billing"],
    ]);

    const checkout = await call("recall", { query: "checkout redesign", include: ["graph"] });
    assert.equal(checkout.text, "Nothing found.", "an entity with a name alone is not an answer");

    const paging = await call("recall", { query: "who gets paged on call", include: ["graph"] });
    assert.match(
      paging.text,
      /\[entity rota entity:ops:oncall\]/,
      "a name like a handle is prefixed",
    );

    const ada = await call("open", { handle: "Ada" });
    assert.equal(
      ada.text,
      "- Ada (person): Lives in Lyon; Prefers the Go programming language over Python\n" +
        "- Ada —maintains→ billing",
    );
    assert.match((await call("open", { handle: "entity:ops:oncall" })).text, /Pages whoever/);
    assert.match((await call("open", { handle: "mem_zebra" })).text, /stripes/, "no memory has it");
    await assert.rejects(() => call("open", { handle: "ada" }), /the entity Ada differs in case/);
    await assert.rejects(
      () => call("create_entities", { entities: [{ name: "two\nlines", entityType: "x" }] }),
      /a name is one line, without control characters/,
    );
    const zebra = await call("recall", { query: "stripes", include: ["graph"], format: "json" });
    assert.deepEqual(
      (zebra.data as { results: Array<Record<string, unknown>> }).results[0]?.handle,
      "entity:mem_zebra",
      "the handle that opens it",
    );
    await assert.rejects(
      () => call("open", { handle: "entity:Nobody" }),
      /no entity named Nobody/,
    );

    const before = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await call("add_observations", {
      observations: [{ entityName: "Ada", contents: ["Switched to Rust in 2026"] }],
    });
    await call("delete_observations", {
      deletions: [{ entityName: "Ada", observations: ["Lives in Lyon"] }],
    });
    await cairn.store.runner.settled();
    const then = await call("recall", { query: "Ada Lyon Rust", as_of: before });
    assert.match(then.text, /^1\. \[entity person Ada\] Lives in Lyon · Prefers the Go/, then.text);
    assert.doesNotMatch(then.text, /Rust/, "what was added since is not shown as known then");
    assert.match(then.text, /the graph's entities as they were then, found by what they say now/);
    const now = await call("recall", { query: "Ada Lyon Rust" });
    assert.match(now.text, /^1\. \[entity person Ada\] .*Switched to Rust/);
    assert.doesNotMatch(now.text, /Lyon/);

    await call("delete_entities", { entityNames: ["Ada"] });
    await cairn.store.runner.settled();
    const gone = await call("recall", { query: "which coding language does Ada like?" });
    assert.doesNotMatch(gone.text, /entity person Ada/);
    assert.doesNotMatch(gone.text, /—maintains→/, "its relations go with it");
  } finally {
    await cairn.close();
  }
});
