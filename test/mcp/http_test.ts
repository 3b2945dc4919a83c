import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { readOwnerRecord, readToken } from "../../src/mcp/owner_file.ts";
import { httpClient, startServe, text } from "./mcp_client.ts";

const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });

/** Sends one raw HTTP request (so the Host header can be anything) and returns its status. */
async function rawStatus(port: number, headers: Record<string, string>): Promise<number> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const lines = [
      "POST /mcp HTTP/1.1",
      ...Object.entries({
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "Content-Length": `${new TextEncoder().encode(LIST).length}`,
        Connection: "close",
        ...headers,
      }).map(([name, value]) => `${name}: ${value}`),
    ];
    await connection.write(new TextEncoder().encode(`${lines.join("\r\n")}\r\n\r\n${LIST}`));
    const buffer = new Uint8Array(256);
    const read = await connection.read(buffer);
    const status = new TextDecoder().decode(buffer.subarray(0, read ?? 0)).split(" ")[1];
    return Number(status);
  } finally {
    connection.close();
  }
}

Deno.test("cairn serve answers MCP over HTTP with the token and refuses requests without it or from elsewhere", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  await using serve = await startServe(store);
  const { port } = (await readOwnerRecord(store))!;
  const token = (await readToken(store))!;
  assert.equal((await Deno.stat(join(store, "serve.token"))).mode! & 0o777, 0o600);
  const local = { Host: `127.0.0.1:${port}` };
  const bearer = { Authorization: `Bearer ${token}` };

  assert.equal(await rawStatus(port, { ...local, ...bearer }), 200);
  assert.equal(await rawStatus(port, { Host: `localhost:${port}`, ...bearer }), 200);
  assert.equal(await rawStatus(port, local), 401, "no token");
  assert.equal(await rawStatus(port, { ...local, Authorization: `Bearer ${"0".repeat(64)}` }), 401);
  assert.equal(await rawStatus(port, { Host: `evil.example:${port}`, ...bearer }), 403, "Host");
  assert.equal(await rawStatus(port, { Host: "127.0.0.1:1", ...bearer }), 403, "Host port");
  assert.equal(
    await rawStatus(port, { ...local, ...bearer, Origin: "http://evil.example" }),
    403,
    "Origin",
  );
  assert.equal(
    await rawStatus(port, { ...local, ...bearer, Origin: `http://localhost:${port}` }),
    200,
  );
  const refused = await fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST", body: LIST });
  assert.equal(refused.status, 401);
  assert.match((await refused.json()).error, /bearer token/);

  const streamed = (bytes: number) =>
    fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      // A stream has no Content-Length: the body is counted as it arrives.
      body: new Blob([" ".repeat(bytes)]).stream(),
    });
  const tooLong = await streamed(1100 * 1024);
  assert.equal(tooLong.status, 413);
  assert.match((await tooLong.json()).error, /more than 1 MiB is refused; send less/);

  await using client = await httpClient(store);
  const { tools } = await client.listTools();
  assert.equal(tools.length, 24, "fifteen memory, search, code and status tools, nine graph tools");
  const stored = await client.callTool({
    name: "remember",
    arguments: { content: "The HTTP transport is stateless.", project: "cairn" },
  });
  assert.notEqual(stored.isError, true, text(stored));
  const found = await client.callTool({ name: "search_text", arguments: { query: "stateless" } });
  assert.match(text(found), /The HTTP transport is stateless/);
  const bad = await client.callTool({ name: "remember", arguments: { content: "" } });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /content is empty/);
  await client.close();

  serve.kill("SIGTERM");
  assert.equal((await serve.status).code, 0);
  assert.equal(await readOwnerRecord(store), undefined, "serve.json is removed on exit");
});
