import assert from "node:assert/strict";
import { join } from "node:path";
import { filesHolding, misconfiguredStore, tempDir } from "../helpers.ts";
import { readOwnerRecord, readToken } from "../../src/mcp/owner_file.ts";
import { OwnerRelay } from "../../src/mcp/relay.ts";
import { killOwner, stdioClient, text } from "./mcp_client.ts";
import { serveHere } from "./serve_here.ts";

/** What calls a tool: an MCP client, or the relay `cairn mcp` forwards calls through. */
interface Caller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

/** The part of a tool's answer these tests read. */
interface Answer {
  isError?: boolean | undefined;
  structuredContent?: unknown;
}

/** The relay a `cairn mcp` forwards its agent's calls through, called as that agent's client. */
function relayed(relay: OwnerRelay): Caller {
  return { callTool: ({ name, arguments: args }) => relay.call(name, args) };
}

async function remember(client: Caller, content: string): Promise<string> {
  const result = await client.callTool({
    name: "remember",
    arguments: { content, force: true },
  }) as Answer;
  assert.notEqual(result.isError, true, text(result));
  return (result.structuredContent as { id: string }).id;
}

async function listedIds(client: Caller): Promise<string[]> {
  const result = await client.callTool({
    name: "list_memories",
    arguments: { limit: 50 },
  }) as Answer;
  assert.notEqual(result.isError, true, text(result));
  return (result.structuredContent as { ids: string[] }).ids;
}

Deno.test("two cairn mcp relays on one store write and read at the same time through one owner", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  await using _serve = await serveHere(store);
  const relays = [new OwnerRelay({ storeDir: store }), new OwnerRelay({ storeDir: store })];
  const [a, b] = relays.map(relayed);
  try {
    const writes = (client: Caller, who: string) =>
      Array.from({ length: 8 }, (_, i) => remember(client, `note ${i} from client ${who}`));
    const reads = (client: Caller) =>
      Array.from(
        { length: 4 },
        () => client.callTool({ name: "search_text", arguments: { query: "note client" } }),
      );
    const [ids, answers] = await Promise.all([
      Promise.all([...writes(a!, "a"), ...writes(b!, "b")]),
      Promise.all([...reads(a!), ...reads(b!)]),
    ]);
    for (const answer of answers) assert.notEqual((answer as Answer).isError, true, text(answer));
    assert.equal(new Set(ids).size, 16);
    assert.deepEqual(new Set(await listedIds(a!)), new Set(ids));
    assert.deepEqual(new Set(await listedIds(b!)), new Set(ids));
    const found = await b!.callTool({ name: "search_text", arguments: { query: "client a" } });
    assert.match(text(found), /from client a/);
    assert.equal((await readOwnerRecord(store))?.pid, Deno.pid, "the one owner served them all");
  } finally {
    await Promise.all(relays.map((relay) => relay.close()));
  }
});

Deno.test("when the owner is killed between calls, the next call starts a new one and nothing acknowledged is lost", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  await using client = await stdioClient(store);
  try {
    const ids = [
      await remember(client, "first, before the crash"),
      await remember(client, "second, before the crash"),
    ];
    const before = (await readOwnerRecord(store))!.pid;
    const token = await readToken(store);
    await killOwner(store, "SIGKILL");
    assert.deepEqual(new Set(await listedIds(client)), new Set(ids));
    const after = (await readOwnerRecord(store))!.pid;
    assert.notEqual(after, before, "a new owner answered");
    assert.notEqual(await readToken(store), token, "with a token of its own");
    ids.push(await remember(client, "third, after the crash"));
    assert.deepEqual(new Set(await listedIds(client)), new Set(ids));
  } finally {
    await client.close();
    await killOwner(store);
  }
});

Deno.test("a call the owner dies while answering is not sent again: the caller and the owner's log are told", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  // One folder for each call: a folder is one project.
  for (const streamed of [false, true]) {
    const repo = join(tmp.path, `repo${streamed}`);
    await Deno.mkdir(repo);
    for (let i = 0; i < 3000; i++) {
      await Deno.writeTextFile(join(repo, `m${i}.py`), `def f${i}(x):\n    return x + ${i}\n`);
    }
  }
  await using client = await stdioClient(store, [], { CAIRN_ALLOWED_ROOTS: tmp.path });
  try {
    await remember(client, "the owner is up");
    // Once answered in one reply, once in a stream that carries its progress first.
    for (const streamed of [false, true]) {
      const owner = (await readOwnerRecord(store))!.pid;
      const heard: unknown[] = [];
      const call = client.callTool(
        {
          name: "index_project",
          arguments: { path: join(tmp.path, `repo${streamed}`), project: `repo${streamed}` },
        },
        undefined,
        streamed ? { onprogress: (p) => heard.push(p) } : {},
      );
      // Killed once the owner has begun: the project is registered, its 3,000 files still to go.
      const deadline = Date.now() + 30_000;
      while (!(await filesHolding(join(store, "log"), `"repo${streamed}"`)).length) {
        assert.ok(Date.now() < deadline, "the owner began the index within 30 s");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      Deno.kill(owner, "SIGKILL");
      const result = await call;
      assert.equal(result.isError, true, text(result));
      assert.match(
        text(result),
        /stopped while answering the index_project tool; it was not sent again/,
      );
      assert.equal((await readOwnerRecord(store))?.pid, owner, "no new owner was started for it");
      const log = await Deno.readTextFile(join(store, "serve.log"));
      assert.match(
        log,
        new RegExp(`owner \\(pid ${owner}\\) stopped while answering the index_project`),
      );
      // The next call is another matter: it starts a new owner.
      assert.equal((await listedIds(client)).length, 1);
      assert.notEqual((await readOwnerRecord(store))?.pid, owner);
    }
  } finally {
    await client.close();
    await killOwner(store);
  }
});

Deno.test("two agents in different folders, with different allowed roots, share one owner and each indexes its own folder", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const folders = ["alpha", "beta"].map((name) => join(tmp.path, name));
  for (const [i, folder] of folders.entries()) {
    await Deno.mkdir(folder);
    await Deno.writeTextFile(join(folder, `m${i}.py`), `def only_in_${i}():\n    return ${i}\n`);
  }
  const [a, b] = await Promise.all(
    folders.map((folder) => stdioClient(store, [], { CAIRN_ALLOWED_ROOTS: folder }, folder)),
  );
  try {
    const first = await a!.callTool({ name: "index_project", arguments: { path: "." } });
    assert.notEqual(first.isError, true, text(first));
    assert.match(text(first), new RegExp(`indexed project alpha \\(${folders[0]}\\)`));
    const owner = (await readOwnerRecord(store))!.pid;
    // Progress asked of the relay comes from the owner through it.
    const heard: Array<string | undefined> = [];
    const second = await b!.callTool(
      { name: "index_project", arguments: { path: "." } },
      undefined,
      { onprogress: (p) => heard.push(p.message) },
    );
    assert.notEqual(second.isError, true, text(second));
    assert.deepEqual(heard, ["files 1/1 (100%), 1 chunks"]);
    assert.match(text(second), new RegExp(`indexed project beta \\(${folders[1]}\\)`));
    assert.equal((await readOwnerRecord(store))!.pid, owner, "one owner served both");
    const across = await b!.callTool({ name: "index_project", arguments: { path: folders[0] } });
    assert.equal(across.isError, true, "beta's roots do not hold alpha");
    assert.match(text(across), /outside the folders cairn may read/);
  } finally {
    await Promise.all([a!.close(), b!.close()]);
    await killOwner(store);
  }
});

Deno.test("an owner that cannot open the store is not started again: the agent's call fails at once with its reason", async () => {
  await using tmp = await tempDir();
  const store = await misconfiguredStore(tmp.path);
  await using client = await stdioClient(store);
  const answer = await client.callTool({ name: "recall", arguments: { query: "deploys" } });
  assert.equal((answer as Answer).isError, true);
  assert.match(text(answer), /did not start.*\n.*config\.json: unknown key "embeder"/);
  const log = await Deno.readTextFile(join(store, "serve.log"));
  assert.equal(log.match(/unknown key/g)?.length, 1, "one owner was started");
});
