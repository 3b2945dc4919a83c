import assert from "node:assert/strict";
import { join } from "node:path";
import { BlobStore } from "../../events/blobs.ts";
import type { NewEvent } from "../../events/schema.ts";
import { TextProjection, type TextSearchOptions } from "../../projections/text.ts";
import { remembered, tempDir } from "../helpers.ts";
import { ALL, answersOf, fileIndexed, ids, stored, threaded, turnIngested } from "./text_events.ts";

/** A projection in a temp dir with a memory, two code chunks and a turn. */
async function given(dir: string) {
  const blobs = new BlobStore(join(dir, "blobs"));
  const projection = await TextProjection.open(join(dir, "text"), blobs);
  const batch = stored(
    remembered("m1", "We store the userName in the session cookie"),
    remembered("m2", "Deploys go out on Fridays", "other"),
    remembered("g1", "Global preference: tabs over spaces", null),
    await fileIndexed(blobs, "p", "src/auth/login.ts", [
      { id: "c1", name: "getUserName", text: "function getUserName(req) { return req.user; }" },
      { id: "c2", name: "logout", text: "function logout() { clearCookie(); }" },
    ]),
    await turnIngested(blobs, "s1", 4, "Please fix the flaky retry test"),
  );
  await projection.apply(batch);
  return { blobs, projection, batch };
}

Deno.test("TextProjection.search() finds identifiers by their parts, across sources", async () => {
  await using dir = await tempDir();
  const { projection } = await given(dir.path);
  const found = ids(projection, "user name");
  assert.deepEqual(found.slice(0, 2).sort(), ["code:c1", "memory:m1"]);
  assert.deepEqual(ids(projection, "login.ts").sort(), ["code:c1", "code:c2"]);
  assert.deepEqual(ids(projection, "retry tests"), ["turn:s1:4"]);
  await projection.close();
});

Deno.test("TextProjection.search() filters by source and by project (global memories match any)", async () => {
  await using dir = await tempDir();
  const { projection } = await given(dir.path);
  assert.deepEqual(ids(projection, "user name", { sources: ["memory"], limit: 10 }), ["memory:m1"]);
  assert.deepEqual(ids(projection, "fridays", { ...ALL, project: "p" }), []);
  assert.deepEqual(ids(projection, "fridays", { ...ALL, project: "other" }), ["memory:m2"]);
  assert.deepEqual(ids(projection, "tabs", { ...ALL, project: "other" }), ["memory:g1"]);
  assert.deepEqual(ids(projection, "tabs fridays", { ...ALL, project: null }).sort(), [
    "memory:g1",
    "memory:m2",
  ]);
  await projection.close();
});

Deno.test("TextProjection.apply() indexes a revised memory by its new words, not the old", async () => {
  await using dir = await tempDir();
  const { projection } = await given(dir.path);
  await projection.apply(stored(
    { type: "memory.revised", v: 1, data: { id: "m1", content: "Sessions live in Redis now" } },
    { type: "memory.revised", v: 1, data: { id: "m1", tags: ["storage"] } },
  ));
  const memories: TextSearchOptions = { sources: ["memory"], limit: 10 };
  assert.deepEqual(ids(projection, "cookie", memories), []);
  assert.deepEqual(ids(projection, "redis", memories), ["memory:m1"]);
  assert.deepEqual(ids(projection, "storage", memories), ["memory:m1"]);
  await projection.close();
});

Deno.test("TextProjection.apply() drops forgotten, purged, removed and retracted documents", async () => {
  await using dir = await tempDir();
  const { projection, blobs } = await given(dir.path);
  await projection.apply(stored(
    { type: "memory.forgotten", v: 1, data: { id: "m1" } },
    { type: "memory.purged", v: 1, data: { id: "m2" } },
    { type: "file.removed", v: 1, data: { project: "p", path: "src/auth/login.ts" } },
    { type: "turn.retracted", v: 1, data: { session: "s1", line: 4 } },
  ));
  assert.deepEqual(ids(projection, "user name cookie fridays logout retry"), []);
  assert.deepEqual(projection.counts(), { memory: 1, code: 0, turn: 0, entity: 0 });
  await projection.apply(stored(
    await fileIndexed(blobs, "q", "a.ts", [{ id: "x", name: "alpha", text: "alpha()" }]),
    { type: "project.deleted", v: 1, data: { project: "q" } },
  ));
  assert.deepEqual(ids(projection, "alpha"), []);
  await projection.close();
});

Deno.test("TextProjection.apply() replaces a re-indexed file's chunks", async () => {
  await using dir = await tempDir();
  const { projection, blobs } = await given(dir.path);
  await projection.apply(stored(
    await fileIndexed(blobs, "p", "src/auth/login.ts", [
      { id: "c3", name: "signIn", text: "function signIn() {}" },
    ]),
  ));
  assert.deepEqual(ids(projection, "login.ts"), ["code:c3"]);
  assert.deepEqual(ids(projection, "logout"), []);
  await projection.close();
});

Deno.test("TextProjection.open() reopens with the same results and digest", async () => {
  await using dir = await tempDir();
  const { projection, blobs } = await given(dir.path);
  await projection.apply(stored({ type: "memory.forgotten", v: 1, data: { id: "m2" } }));
  const digest = await projection.digest();
  const before = projection.search("user name tabs", ALL);
  await projection.close();
  const reopened = await TextProjection.open(join(dir.path, "text"), blobs);
  assert.equal(await reopened.digest(), digest);
  assert.deepEqual(reopened.search("user name tabs", ALL), before);
  await reopened.compact();
  await reopened.close();
  const fromSnapshot = await TextProjection.open(join(dir.path, "text"), blobs);
  assert.equal(await fromSnapshot.digest(), digest);
  await fromSnapshot.close();
});

Deno.test("TextProjection.open() cuts a torn last journal line", async () => {
  await using dir = await tempDir();
  const { projection, blobs } = await given(dir.path);
  const digest = await projection.digest();
  await projection.close();
  await Deno.writeTextFile(join(dir.path, "text", "journal.jsonl"), '[{"key":"memory:zz', {
    append: true,
  });
  const reopened = await TextProjection.open(join(dir.path, "text"), blobs);
  assert.equal(await reopened.digest(), digest);
  await reopened.apply(stored(remembered("m9", "after the cut")));
  await reopened.close();
  const again = await TextProjection.open(join(dir.path, "text"), blobs);
  assert.deepEqual(ids(again, "cut"), ["memory:m9"]);
  await again.close();
});

Deno.test("TextProjection.open() takes an unreadable last journal line for a torn write, and refuses one in the middle", async () => {
  await using dir = await tempDir();
  const { projection, blobs } = await given(dir.path);
  const digest = await projection.digest();
  await projection.close();
  const journal = join(dir.path, "text", "journal.jsonl");
  const good = await Deno.readTextFile(journal);
  await Deno.writeTextFile(journal, good + "[{not json\n");
  const reopened = await TextProjection.open(join(dir.path, "text"), blobs);
  assert.equal(await reopened.digest(), digest);
  await reopened.close();
  assert.equal(await Deno.readTextFile(journal), good, "the torn line is cut off");
  await Deno.writeTextFile(journal, "[{not json\n" + good);
  await assert.rejects(
    TextProjection.open(join(dir.path, "text"), blobs),
    /journal .* is damaged at line 1; run `cairn replay --projection text`/,
  );
});

Deno.test("TextProjection.apply() twice gives the same digest, whatever the history", async () => {
  await using dir = await tempDir();
  const { projection, batch } = await given(dir.path);
  const digest = await projection.digest();
  await projection.apply(batch);
  assert.equal(await projection.digest(), digest);
  await projection.apply(
    stored(remembered("tmp"), { type: "memory.purged", v: 1, data: { id: "tmp" } }),
  );
  assert.equal(await projection.digest(), digest);
  await projection.close();
});

Deno.test("TextProjection.reset() empties it, on disk too", async () => {
  await using dir = await tempDir();
  const { projection, blobs } = await given(dir.path);
  await projection.reset();
  assert.deepEqual(ids(projection, "user name"), []);
  assert.deepEqual(projection.counts(), { memory: 0, code: 0, turn: 0, entity: 0 });
  const empty = await projection.digest();
  await projection.close();
  const reopened = await TextProjection.open(join(dir.path, "text"), blobs);
  assert.equal(await reopened.digest(), empty);
  await reopened.close();
});

Deno.test("TextProjection.searchContext() finds a turn by words its neighbours hold, and follows changes", async () => {
  await using tmp = await tempDir();
  const projection = await TextProjection.open(
    join(tmp.path, "text"),
    new BlobStore(join(tmp.path, "blobs")),
  );
  const turn = (id: string, content: string, source = "chat-1"): NewEvent => {
    const event = remembered(id, content, "p");
    return { ...event, data: { ...event.data, source } } as NewEvent;
  };
  try {
    await projection.apply(stored(
      turn("a", "Did you ever try pottery?"),
      turn("b", "Yes, last summer at the community studio."),
      turn("c", "I loved it."),
      turn("z", "pottery studio downtown", "chat-2"),
    ));
    const ids = (query: string) =>
      projection.searchContext(query, { source: "memory", project: "p", limit: 3 }).map((h) =>
        h.ids[0]
      );
    // "b" never says pottery, but its neighbour does: in context it matches both words.
    assert.deepEqual(ids("pottery summer").slice(0, 2).sort(), ["a", "b"]);
    assert.ok(!ids("pottery summer").includes("z") || ids("pottery summer").indexOf("z") > 1);
    await projection.apply(stored({ type: "memory.forgotten", v: 1, data: { id: "a" } }));
    assert.deepEqual(ids("pottery summer").includes("a"), false);
    assert.equal(ids("pottery summer")[0], "z", "b lost its pottery neighbour");
  } finally {
    await projection.close();
  }
});

Deno.test("TextProjection.searchContext() finds code chunks through their whole file, and follows re-indexing", async () => {
  await using tmp = await tempDir();
  const blobs = new BlobStore(join(tmp.path, "blobs"));
  const projection = await TextProjection.open(join(tmp.path, "text"), blobs);
  try {
    await projection.apply(stored(
      await fileIndexed(blobs, "p", "src/hooks.py", [
        { id: "h1", name: "register_hook", text: "def register_hook(event, hook): ..." },
        { id: "h2", name: "dispatch", text: "def dispatch(response): call every callback" },
      ]),
      await fileIndexed(blobs, "p", "src/other.py", [
        { id: "o1", name: "register", text: "def register(plugin): ..." },
      ]),
      await fileIndexed(blobs, "q", "src/hooks.py", [
        { id: "q1", name: "register_hook", text: "hook callback" },
      ]),
    ));
    const files = (query: string) =>
      projection.searchContext(query, { source: "code", project: "p", limit: 5 }).map((hit) =>
        [...hit.ids].sort()
      );
    // No chunk says both "hook" and "callback"; the file hooks.py does, and brings both chunks.
    assert.deepEqual(files("hook callback"), [["h1", "h2"]]);
    await projection.apply(stored(
      await fileIndexed(blobs, "p", "src/hooks.py", [
        { id: "h3", name: "register_hook", text: "def register_hook(event, hook): ..." },
      ]),
    ));
    assert.deepEqual(files("hook callback"), [["h3"]]);
    assert.equal(projection.fileOf("h3"), "p\0src/hooks.py");
    assert.equal(projection.fileOf("h1"), undefined, "a chunk the re-index dropped has no file");
    assert.deepEqual(projection.chunksOf("p\0src/hooks.py"), ["h3"]);
    assert.deepEqual(files("callback"), [], "the re-indexed file no longer says callback");
    assert.deepEqual(projection.searchContext("hook", { source: "turn", limit: 5 }), []);
  } finally {
    await projection.close();
  }
  const reopened = await TextProjection.open(join(tmp.path, "text"), blobs);
  try {
    assert.deepEqual(
      reopened.searchContext("hook event", { source: "code", project: "p", limit: 5 })
        .map((hit) => hit.ids),
      [["h3"]],
      "whole files are rebuilt on open",
    );
  } finally {
    await reopened.close();
  }
});

Deno.test("TextProjection builds its search index on the first search, finding what a live one finds", async () => {
  await using tmp = await tempDir();
  const blobs = new BlobStore(join(tmp.path, "blobs"));
  const live = await TextProjection.open(join(tmp.path, "live"), blobs);
  const lazy = await TextProjection.open(join(tmp.path, "lazy"), blobs);
  const batches = [
    stored(
      threaded("a", "Did you ever try pottery?"),
      threaded("b", "Yes, last summer at the community studio."),
      await fileIndexed(blobs, "p", "src/hooks.py", [
        { id: "h1", name: "register_hook", text: "def register_hook(event, hook): ..." },
        { id: "h2", name: "dispatch", text: "def dispatch(response): call every callback" },
      ]),
      await fileIndexed(blobs, "p", "src/models.py", [
        { id: "m1", name: "Response", text: "class Response: holds the hook results" },
        { id: "m2", name: "Response.json", text: "def json(self): decode the response body" },
      ]),
    ),
    stored(
      threaded("c", "I loved the studio."),
      { type: "memory.forgotten", v: 1, data: { id: "a" } },
      await fileIndexed(blobs, "p", "src/hooks.py", [
        { id: "h3", name: "register_hook", text: "def register_hook(event, hook, callback): ..." },
      ]),
    ),
  ];
  const answers = (projection: TextProjection) =>
    answersOf(projection, ["pottery studio", "hook callback", "summer", "dispatch response"]);
  try {
    answers(live);
    for (const batch of batches) {
      await live.apply(batch);
      await lazy.apply(batch);
      answers(live);
    }
    assert.deepEqual(lazy.counts(), live.counts());
    assert.deepEqual(answers(lazy), answers(live));
    assert.equal(await lazy.digest(), await live.digest());
  } finally {
    await live.close();
    await lazy.close();
  }
});

Deno.test("TextProjection.warm() builds the index a few documents per turn, following what is applied meanwhile", async () => {
  await using tmp = await tempDir();
  const blobs = new BlobStore(join(tmp.path, "blobs"));
  const cold = await TextProjection.open(join(tmp.path, "cold"), blobs);
  const warmed = await TextProjection.open(join(tmp.path, "warmed"), blobs);
  const interrupted = await TextProjection.open(join(tmp.path, "interrupted"), blobs);
  const first = stored(
    threaded("a", "Did you ever try pottery?"),
    threaded("b", "Yes, last summer at the community studio."),
    await fileIndexed(blobs, "p", "src/hooks.py", [
      { id: "h1", name: "register_hook", text: "def register_hook(event, hook): ..." },
      { id: "h2", name: "dispatch", text: "def dispatch(response): call every callback" },
    ]),
    await fileIndexed(blobs, "p", "src/models.py", [
      { id: "m1", name: "Response", text: "class Response: holds the hook results" },
    ]),
    await fileIndexed(blobs, "p", "src/session.py", [
      { id: "s1", name: "Session.send", text: "def send(self, request): adapters send it" },
    ]),
  );
  const second = stored(
    threaded("c", "I loved the studio."),
    { type: "memory.forgotten", v: 1, data: { id: "a" } },
    await fileIndexed(blobs, "p", "src/hooks.py", [
      { id: "h3", name: "register_hook", text: "def register_hook(event, hook, callback): ..." },
    ]),
    { type: "file.removed", v: 1, data: { project: "p", path: "src/session.py" } },
  );
  const answers = (projection: TextProjection) =>
    answersOf(projection, [
      "pottery studio",
      "hook callback",
      "summer",
      "dispatch response",
      "send request",
    ]);
  const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));
  try {
    for (const projection of [cold, warmed, interrupted]) await projection.apply(first);
    const warming = warmed.warm(1);
    const cutShort = interrupted.warm(1);
    await nextTurn();
    for (const projection of [cold, warmed, interrupted]) await projection.apply(second);
    // A search in the middle of the build finishes it.
    assert.deepEqual(answers(interrupted), answers(cold));
    await Promise.all([warming, cutShort]);
    assert.deepEqual(answers(warmed), answers(cold));
    assert.deepEqual(answers(interrupted), answers(cold));
  } finally {
    for (const projection of [cold, warmed, interrupted]) await projection.close();
  }
});

/** The search indexes' saved images in a projection's directory, deleted: the next search builds them. */
async function dropImages(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.endsWith(".image")) await Deno.remove(join(dir, entry.name));
  }
}

const QUERIES = ["clear cookie", "flaky retry", "user name"];

/** {@linkcode given}, its digest and answers to `QUERIES`, written as a snapshot and closed. */
async function givenAndClosed(dir: string) {
  const { projection, blobs } = await given(dir);
  const digest = await projection.digest();
  const before = answersOf(projection, QUERIES);
  await projection.compact();
  await projection.close();
  return { blobs, digest, before };
}

Deno.test("TextProjection keeps chunk and turn texts in the blobs, not in its files, and searches them", async () => {
  await using dir = await tempDir();
  const { blobs, digest, before } = await givenAndClosed(dir.path);
  for (const name of ["snapshot.jsonl", "journal.jsonl"]) {
    const stored = await Deno.readTextFile(join(dir.path, "text", name));
    assert.ok(!stored.includes("clearCookie") && !stored.includes("flaky"), name);
  }
  await dropImages(join(dir.path, "text"));

  const reopened = await TextProjection.open(join(dir.path, "text"), blobs);
  try {
    assert.deepEqual(answersOf(reopened, QUERIES), before);
    assert.equal(await reopened.digest(), digest);
    assert.equal(reopened.text("chunk:p:c2"), "function logout() { clearCookie(); }");
    assert.equal(reopened.text("turn:s1:4"), "Please fix the flaky retry test");
    assert.equal(reopened.text("memory:m1"), undefined);
  } finally {
    await reopened.close();
  }
});

Deno.test("TextProjection opens a store kept with texts inline as the same index", async () => {
  await using dir = await tempDir();
  const { blobs, digest, before } = await givenAndClosed(dir.path);
  const snapshot = join(dir.path, "text", "snapshot.jsonl");
  const inline = [];
  for (const line of (await Deno.readTextFile(snapshot)).split("\n").filter(Boolean)) {
    const { blob, ...doc } = JSON.parse(line);
    inline.push(blob ? { ...doc, fields: [...doc.fields, await blobs.get(blob)] } : doc);
  }
  await Deno.writeTextFile(snapshot, inline.map((doc) => JSON.stringify(doc) + "\n").join(""));
  assert.ok((await Deno.readTextFile(snapshot)).includes("clearCookie"));

  const reopened = await TextProjection.open(join(dir.path, "text"), blobs);
  try {
    assert.equal(await reopened.digest(), digest);
    assert.deepEqual(answersOf(reopened, QUERIES), before);
    assert.ok(!(await Deno.readTextFile(snapshot)).includes("clearCookie"));
  } finally {
    await reopened.close();
  }
});

Deno.test("TextProjection indexes a chunk whose blob is missing by its name and path, and says so once", async () => {
  await using dir = await tempDir();
  const { projection, blobs, batch } = await given(dir.path);
  await projection.close();
  const [, , , code] = batch;
  for (const chunk of (code!.data as { chunks: Array<{ text: string }> }).chunks) {
    await blobs.remove(chunk.text);
  }
  await dropImages(join(dir.path, "text"));
  const said: string[] = [];
  const consoleError = console.error;
  console.error = (line: string) => said.push(line);
  const reopened = await TextProjection.open(join(dir.path, "text"), blobs);
  try {
    assert.deepEqual(ids(reopened, "logout"), ["code:c2"]);
    assert.deepEqual(ids(reopened, "clear cookie", { sources: ["code"], limit: 10 }), []);
    assert.deepEqual(ids(reopened, "flaky retry"), ["turn:s1:4"]);
    assert.equal(reopened.text("chunk:p:c2"), "");
    assert.equal(said.length, 1);
    assert.match(said[0]!, /blob [0-9a-f]{64} is missing.*cairn verify/);
  } finally {
    console.error = consoleError;
    await reopened.close();
  }
});

Deno.test("TextProjection applies a turn whose blob is missing while its indexes are built, without its text", async () => {
  await using dir = await tempDir();
  const { projection, blobs } = await given(dir.path);
  const turn = await turnIngested(blobs, "s2", 1, "the nightly build broke");
  await blobs.remove((turn.data as { text: string }).text);
  ids(projection, "user name");
  const said: string[] = [];
  const consoleError = console.error;
  console.error = (line: string) => said.push(line);
  try {
    await projection.apply(stored(turn));
    assert.deepEqual(ids(projection, "nightly build broke"), []);
    assert.equal(projection.counts().turn, 2);
    assert.equal(said.length, 1);
  } finally {
    console.error = consoleError;
    await projection.close();
  }
});
