import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { readOwnerRecord } from "../../src/mcp/owner_file.ts";
import { killOwner, stdioClient, text } from "./mcp_client.ts";

type Client = Awaited<ReturnType<typeof stdioClient>>;

async function remember(client: Client, content: string): Promise<string> {
  const result = await client.callTool({ name: "remember", arguments: { content, force: true } });
  assert.notEqual(result.isError, true, text(result));
  return (result.structuredContent as { id: string }).id;
}

async function listedIds(client: Client): Promise<string[]> {
  const result = await client.callTool({ name: "list_memories", arguments: { limit: 50 } });
  assert.notEqual(result.isError, true, text(result));
  return (result.structuredContent as { ids: string[] }).ids;
}

Deno.test("two cairn mcp clients on one store write and read at the same time through one owner", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const [a, b] = await Promise.all([stdioClient(store), stdioClient(store)]);
  try {
    const writes = (client: Client, who: string) =>
      Array.from({ length: 8 }, (_, i) => remember(client, `note ${i} from client ${who}`));
    const reads = (client: Client) =>
      Array.from(
        { length: 4 },
        () => client.callTool({ name: "search_text", arguments: { query: "note client" } }),
      );
    const [ids, answers] = await Promise.all([
      Promise.all([...writes(a!, "a"), ...writes(b!, "b")]),
      Promise.all([...reads(a!), ...reads(b!)]),
    ]);
    for (const answer of answers) assert.notEqual(answer.isError, true, text(answer));
    assert.equal(new Set(ids).size, 16);
    assert.deepEqual(new Set(await listedIds(a!)), new Set(ids));
    assert.deepEqual(new Set(await listedIds(b!)), new Set(ids));
    const found = await b!.callTool({ name: "search_text", arguments: { query: "client a" } });
    assert.match(text(found), /from client a/);
  } finally {
    await Promise.all([a!.close(), b!.close()]);
    await killOwner(store);
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
    await killOwner(store, "SIGKILL");
    assert.deepEqual(new Set(await listedIds(client)), new Set(ids));
    const after = (await readOwnerRecord(store))!.pid;
    assert.notEqual(after, before, "a new owner answered");
    ids.push(await remember(client, "third, after the crash"));
    assert.deepEqual(new Set(await listedIds(client)), new Set(ids));
  } finally {
    await client.close();
    await killOwner(store);
  }
});
