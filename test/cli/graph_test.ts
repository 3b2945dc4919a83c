import assert from "node:assert/strict";
import { join } from "node:path";
import { openCairn } from "../../src/service/cairn.ts";
import { tempDir } from "../helpers.ts";
import { type OwnerHere, ownerHere } from "./in_process.ts";

/** Runs `cairn graph ARGS...` in the store's owner, asserting it succeeds; returns its standard output. */
async function graphOk(owner: OwnerHere, ...args: string[]): Promise<string> {
  const run = await owner.cli(["graph", ...args]);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}

/** The number of events in the store's log. */
async function head(owner: OwnerHere): Promise<number> {
  const status = await owner.cli(["status", "--json"]);
  assert.equal(status.code, 0, status.stderr);
  return JSON.parse(status.stdout).head;
}

Deno.test("cairn graph builds the graph from arguments and shows it a line an entity or relation", async () => {
  await using tmp = await tempDir();
  await using owner = await ownerHere(tmp.path);
  assert.equal(
    await graphOk(owner, "add-entity", "Ada", "--type", "person", "--observation", "writes Rust"),
    "created Ada (person): writes Rust\n",
  );
  assert.equal(
    await graphOk(owner, "add-entity", "billing", "--type", "service"),
    "created billing (service)\n",
  );
  assert.equal(
    await graphOk(owner, "add-entity", "Ada", "--type", "person"),
    "already exists: Ada (add to it with add_observations or `cairn graph observe`)\n",
  );
  assert.equal(
    await graphOk(owner, "relate", "Ada", "maintains", "billing"),
    "related: Ada —maintains→ billing\n",
  );
  assert.equal(
    await graphOk(owner, "relate", "Ada", "maintains", "billing"),
    "already related: Ada —maintains→ billing\n",
  );
  assert.equal(
    await graphOk(owner, "observe", "Ada", "on call in March", "writes Rust"),
    "added to Ada: on call in March\n",
  );
  assert.equal(
    await graphOk(owner, "observe", "Ada", "writes Rust"),
    "Ada already has those observations\n",
  );
  const whole = "- Ada (person): writes Rust; on call in March\n- billing (service)\n" +
    "- Ada —maintains→ billing\n";
  assert.equal(await graphOk(owner, "open", "billing", "Ada"), whole);
  assert.equal(await graphOk(owner, "read"), whole);
  assert.equal(
    await graphOk(owner, "search", "MARCH"),
    "- Ada (person): writes Rust; on call in March\n- Ada —maintains→ billing\n",
  );
  assert.equal(await graphOk(owner, "search", "nothing", "like", "this"), "No entities.\n");
});

Deno.test("cairn graph deletes observations, relations and entities", async () => {
  await using tmp = await tempDir();
  await using owner = await ownerHere(tmp.path);
  await graphOk(
    owner,
    "add-entity",
    "Ada",
    "--type",
    "person",
    "--observation",
    "a",
    "--observation",
    "b",
  );
  await graphOk(owner, "add-entity", "billing", "--type", "service");
  await graphOk(owner, "add-entity", "Cy", "--type", "person");
  await graphOk(owner, "relate", "Ada", "maintains", "billing");
  await graphOk(owner, "relate", "Cy", "reviews", "billing");
  await new Promise((resolve) => setTimeout(resolve, 5));
  const then = new Date().toISOString();
  // The deletions come after `then` by the clock, however fast the owner runs them.
  while (Date.now() <= Date.parse(then)) await new Promise((resolve) => setTimeout(resolve, 1));
  assert.equal(await graphOk(owner, "delete-observation", "Ada", "a"), "deleted from Ada: a\n");
  assert.equal(
    await graphOk(owner, "unrelate", "Ada", "maintains", "billing"),
    "unrelated: Ada —maintains→ billing\n",
  );
  assert.equal(await graphOk(owner, "delete-entity", "Cy"), "deleted Cy and their relations\n");
  assert.equal(await graphOk(owner, "read"), "- Ada (person): b\n- billing (service)\n");
  assert.equal(
    await graphOk(owner, "open", "Ada", "Cy", "--as-of", then),
    "- Ada (person): a; b\n- Cy (person)\n- Ada —maintains→ billing\n- Cy —reviews→ billing\n",
  );
  assert.match(await graphOk(owner, "read", "--as-of", then), /Cy —reviews→ billing/);
  assert.match(await graphOk(owner, "search", "reviews", "--as-of", then, "--json"), /"entities"/);
});

Deno.test("cairn graph read and search page through the graph with the cursor each page prints", async () => {
  await using tmp = await tempDir();
  await using owner = await ownerHere(tmp.path);
  for (const name of ["api", "billing", "cache"]) {
    await graphOk(owner, "add-entity", name, "--type", "service", "--observation", `runs ${name}`);
  }
  await graphOk(owner, "relate", "api", "calls", "billing");
  assert.equal(
    await graphOk(owner, "read", "--limit", "2"),
    "- api (service): runs api\n- billing (service): runs billing\n- api —calls→ billing\n" +
      "> 1 more entity; next page: offset 2\n",
  );
  assert.equal(
    await graphOk(owner, "read", "--limit", "2", "--cursor", "2"),
    "- cache (service): runs cache\n",
  );
  const first = JSON.parse(await graphOk(owner, "search", "runs", "--limit", "2", "--json"));
  assert.deepEqual(first.entities.map((e: { name: string }) => e.name), ["api", "billing"]);
  assert.equal(first.more, 1);
  const second = JSON.parse(
    await graphOk(owner, "search", "runs", "--limit", "2", "--cursor", "2", "--json"),
  );
  assert.deepEqual(second, {
    entities: [{ name: "cache", entityType: "service", observations: ["runs cache"] }],
    relations: [],
    more: 0,
  });
  assert.equal(await graphOk(owner, "read", "--cursor", "3"), "No entities.\n");
});

Deno.test("cairn graph --json prints the service's result", async () => {
  await using tmp = await tempDir();
  await using owner = await ownerHere(tmp.path);
  assert.deepEqual(
    JSON.parse(await graphOk(owner, "add-entity", "Ada", "--type", "person", "--json")),
    [{ name: "Ada", entityType: "person", observations: [] }],
  );
  await graphOk(owner, "add-entity", "billing", "--type", "service");
  const ada = { from: "Ada", to: "billing", relationType: "maintains" };
  assert.deepEqual(
    JSON.parse(await graphOk(owner, "relate", "Ada", "maintains", "billing", "--json")),
    [ada],
  );
  assert.deepEqual(JSON.parse(await graphOk(owner, "observe", "Ada", "x", "y", "--json")), [
    { entityName: "Ada", addedObservations: ["x", "y"] },
  ]);
  assert.deepEqual(JSON.parse(await graphOk(owner, "open", "Ada", "--json")), {
    entities: [{ name: "Ada", entityType: "person", observations: ["x", "y"] }],
    relations: [ada],
    more: 0,
  });
  assert.deepEqual(
    JSON.parse(await graphOk(owner, "delete-observation", "Ada", "x", "--json")),
    { deleted: [{ entityName: "Ada", contents: ["x"] }], absent: [] },
  );
  assert.deepEqual(
    JSON.parse(await graphOk(owner, "unrelate", "Ada", "maintains", "billing", "--json")),
    { deleted: [ada], absent: [] },
  );
  assert.deepEqual(
    JSON.parse(await graphOk(owner, "delete-entity", "billing", "--json")),
    { deleted: ["billing"], absent: [] },
  );
  assert.deepEqual(JSON.parse(await graphOk(owner, "read", "--json")), {
    entities: [{ name: "Ada", entityType: "person", observations: ["y"] }],
    relations: [],
    more: 0,
  });
});

Deno.test("cairn graph takes the MCP tools' JSON arrays from --file or standard input", async () => {
  await using tmp = await tempDir();
  await using owner = await ownerHere(join(tmp.path, "store"));
  const batch = async (name: string, value: unknown) => {
    const path = join(tmp.path, name);
    await Deno.writeTextFile(path, JSON.stringify(value));
    return path;
  };
  const entities = await batch("entities.json", [
    { name: "Ada", entityType: "person", observations: ["writes Rust"] },
    { name: "Bob", entityType: "person" },
    { name: "billing", entityType: "service" },
  ]);
  assert.equal(
    await graphOk(owner, "add-entity", "--file", entities),
    "created Ada (person): writes Rust\ncreated Bob (person)\ncreated billing (service)\n",
  );
  const relations = await batch("relations.json", [
    { from: "Ada", to: "billing", relationType: "maintains" },
    { from: "Bob", to: "billing", relationType: "reviews" },
  ]);
  await graphOk(owner, "relate", "--file", relations);
  await graphOk(
    owner,
    "observe",
    "--file",
    await batch("observations.json", [
      { entityName: "Bob", contents: ["new here", "likes tea"] },
      { entityName: "billing", contents: ["rounds up"] },
    ]),
  );
  await graphOk(
    owner,
    "delete-observation",
    "--file",
    await batch("deletions.json", [{ entityName: "Bob", observations: ["new here"] }]),
  );
  await graphOk(
    owner,
    "unrelate",
    "--file",
    await batch("unrelate.json", [{ from: "Bob", to: "billing", relationType: "reviews" }]),
  );
  assert.equal(
    await graphOk(owner, "read"),
    "- Ada (person): writes Rust\n- Bob (person): likes tea\n- billing (service): rounds up\n" +
      "- Ada —maintains→ billing\n",
  );
  const piped = await owner.cli(["graph", "delete-entity", "--file", "-"], {
    stdin: JSON.stringify(["Ada", "Bob"]),
  });
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(piped.stdout, "deleted Ada, Bob and their relations\n");
  assert.equal(await graphOk(owner, "read"), "- billing (service): rounds up\n");
});

Deno.test("cairn graph explains bad calls with its usage, exit code 2 and nothing written", async () => {
  await using tmp = await tempDir();
  await using owner = await ownerHere(tmp.path);
  await graphOk(owner, "add-entity", "Ada", "--type", "person");
  const before = await head(owner);
  const cases: Array<[string[], RegExp]> = [
    [[], /give a subcommand: add-entity, relate, observe, delete-entity, delete-observation/],
    [["link"], /unknown subcommand "link"; use one of add-entity, relate, .*, search, read/],
    [["add-entity", "Bob"], /give the entity's type with --type TYPE/],
    [["add-entity", "--type", "person"], /give the entity's name/],
    [["relate", "Ada", "maintains"], /give FROM RELATION TO/],
    [["observe", "Ada"], /give the observations to add to Ada/],
    [["delete-entity"], /give the names of the entities to delete/],
    [["open"], /give the names of the entities to open/],
    [["search"], /give the text to search for/],
    [["read", "--limit", "101"], /--limit takes at most 100/],
    [["read", "--cursor", "next"], /--cursor takes the offset a page printed/],
    [["read", "--as-of", "yesterday"], /--as-of takes an ISO 8601 date, not "yesterday"/],
    [["read", "--colour"], /unknown option --colour/],
    [
      ["add-entity", "Bob", "--type", "person", "--file", "x.json"],
      /either --file or the arguments/,
    ],
  ];
  for (const [args, message] of cases) {
    const run = await owner.cli(["graph", ...args]);
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.match(run.stderr, /usage: cairn graph SUBCOMMAND/);
  }
  assert.equal(await head(owner), before);
});

Deno.test("cairn graph says which entity, relation or observation does not exist, and changes nothing", async () => {
  await using tmp = await tempDir();
  await using owner = await ownerHere(tmp.path);
  await graphOk(owner, "add-entity", "Ada", "--type", "person", "--observation", "writes Rust");
  await graphOk(owner, "add-entity", "billing", "--type", "service");
  const before = await head(owner);
  const relations = join(tmp.path, "relations.json");
  await Deno.writeTextFile(
    relations,
    JSON.stringify([
      { from: "Ada", to: "billing", relationType: "maintains" },
      { from: "Ada", to: "biling", relationType: "owns" },
    ]),
  );
  const cases: Array<[string[], RegExp]> = [
    [["relate", "Ada", "maintains", "Bob"], /no entity named Bob; nothing was changed/],
    [["relate", "--file", relations], /no entity named biling; nothing was changed/],
    [["observe", "Bob", "x"], /no entity named Bob; nothing was changed/],
    [["delete-entity", "Ada", "Zed"], /no entity named Zed; nothing was changed/],
    [["delete-observation", "Bob", "x"], /no entity named Bob; nothing was changed/],
    [["delete-observation", "Ada", "writes Go"], /Ada has no observation "writes Go"/],
    [["unrelate", "Ada", "maintains", "billing"], /no relation Ada —maintains→ billing/],
  ];
  for (const [args, message] of cases) {
    const run = await owner.cli(["graph", ...args]);
    assert.equal(run.code, 1, `${args.join(" ")}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.equal(run.stdout, "");
  }
  assert.equal(await head(owner), before);
  const opened = await owner.cli(["graph", "open", "Ada", "Zed"]);
  assert.equal(opened.code, 1);
  assert.equal(opened.stdout, "- Ada (person): writes Rust\n");
  assert.match(opened.stderr, /no entity named Zed/);
  const none = await owner.cli(["graph", "open", "Zed"]);
  assert.equal(none.code, 1);
  assert.equal(none.stdout, "", 'the error alone, not "No entities." above it');
  assert.match(none.stderr, /no entity named Zed/);
});

Deno.test("cairn graph refuses a --file it cannot read or that is not the tool's array", async () => {
  await using tmp = await tempDir();
  await using owner = await ownerHere(join(tmp.path, "store"));
  await graphOk(owner, "add-entity", "Ada", "--type", "person");
  const before = await head(owner);
  const write = async (name: string, text: string) => {
    const path = join(tmp.path, name);
    await Deno.writeTextFile(path, text);
    return path;
  };
  const cases: Array<[string[], RegExp]> = [
    [["add-entity", "--file", join(tmp.path, "absent.json")], /cannot read .*absent\.json/],
    [
      ["add-entity", "--file", await write("broken.json", "[{")],
      /broken\.json is not JSON .*; nothing was changed/,
    ],
    [
      ["add-entity", "--file", await write("wrapped.json", '{"entities": []}')],
      /wrapped\.json: input: .*array.*; nothing was changed/,
    ],
    [
      ["add-entity", "--file", await write("untyped.json", '[{"name": "Bob"}]')],
      /untyped\.json: 0\.entityType: /,
    ],
    [["relate", "--file", await write("empty.json", "[]")], /empty\.json: input: /],
  ];
  for (const [args, message] of cases) {
    const run = await owner.cli(["graph", ...args]);
    assert.equal(run.code, 1, `${args.join(" ")}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
  assert.equal(await head(owner), before);
});

Deno.test("cairn graph add-entity puts entities in a project, from arguments or --file", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const entities = join(tmp.path, "entities.json");
  await Deno.writeTextFile(entities, JSON.stringify([{ name: "Kafka", entityType: "queue" }]));
  {
    await using owner = await ownerHere(store);
    await graphOk(owner, "add-entity", "billing", "--type", "service", "--project", "api");
    await graphOk(owner, "add-entity", "--file", entities, "--project", "api");
    await graphOk(owner, "add-entity", "Ada", "--type", "person");
  }
  const cairn = await openCairn(store);
  try {
    const created = (await Array.fromAsync(cairn.store.log.read()))
      .flatMap((event) => event.type === "entity.created" ? [event.data] : []);
    assert.deepEqual(created.map((data) => [data.name, data.project]), [
      ["billing", "api"],
      ["Kafka", "api"],
      ["Ada", null],
    ], "the project a team shares them with");
  } finally {
    await cairn.close();
  }
});
