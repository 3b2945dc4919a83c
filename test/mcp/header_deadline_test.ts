import assert from "node:assert/strict";
import { serveHttp } from "../../src/mcp/http.ts";
import { buildMcpServer } from "../../src/mcp/server.ts";

/** What the server does with a connection: `closed` when it ends it, else what it sent. */
async function outcome(conn: Deno.Conn, waitMs = 5_000): Promise<string> {
  const buffer = new Uint8Array(4096);
  let said = "";
  while (true) {
    const read = await Promise.race([
      conn.read(buffer).catch(() => null),
      new Promise<"open">((resolve) => setTimeout(() => resolve("open"), waitMs)),
    ]);
    if (read === "open") return said ? `open after: ${said.split("\r\n")[0]}` : "open";
    if (read === null) return said ? `closed after: ${said.split("\r\n")[0]}` : "closed";
    said += new TextDecoder().decode(buffer.subarray(0, read));
  }
}

Deno.test("the owner's port closes a connection that sends no headers in time, and an idle one without the token", async () => {
  const http = serveHttp({
    port: 0,
    token: "t".repeat(64),
    newServer: () => buildMcpServer(() => Promise.reject(new Error("no tools here"))),
    headerDeadlineMs: 300,
  });
  const connect = () => Deno.connect({ hostname: "127.0.0.1", port: http.port });
  try {
    const silent = await connect();
    assert.equal(await outcome(silent), "closed", "nothing sent: closed at the deadline");
    silent.close();

    const slow = await connect();
    await slow.write(new TextEncoder().encode("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    assert.equal(await outcome(slow), "closed", "headers never finished: closed too");
    slow.close();

    const refused = await connect();
    await refused.write(
      new TextEncoder().encode(
        `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${http.port}\r\nConnection: keep-alive\r\n\r\n`,
      ),
    );
    assert.equal(await outcome(refused), "closed after: HTTP/1.1 401 Unauthorized");
    refused.close();

    const trusted = await connect();
    await trusted.write(
      new TextEncoder().encode(
        `GET /owner?challenge=${"ab".repeat(16)} HTTP/1.1\r\nHost: 127.0.0.1:${http.port}\r\n` +
          `Authorization: Bearer ${"t".repeat(64)}\r\n\r\n`,
      ),
    );
    assert.equal(
      await outcome(trusted, 1_000),
      "open after: HTTP/1.1 200 OK",
      "kept past the deadline",
    );
    trusted.close();
  } finally {
    await http.shutdown();
  }
});
