import assert from "node:assert/strict";
import { serveHttp } from "../../src/mcp/http.ts";
import { buildMcpServer } from "../../src/mcp/server.ts";
import { UserError } from "../../src/errors.ts";

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

Deno.test("a connection the web view trusts may wait longer than the deadline for its answer; an untrusted one may not", async () => {
  const http = serveHttp({
    port: 0,
    token: "t".repeat(64),
    newServer: () => buildMcpServer(() => Promise.reject(new Error("no tools here"))),
    headerDeadlineMs: 300,
    pages: {
      prefix: "/ui",
      // As a purge from the web view: an answer that takes longer than the deadline.
      handle: async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        return new Response("purged");
      },
      trusts: ({ target, headers }) =>
        Promise.resolve(target === "/ui/api/forget" && headers.get("cookie") === "s=ok"),
    },
  });
  const ask = async (cookie: string) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: http.port });
    await conn.write(
      new TextEncoder().encode(
        `POST /ui/api/forget HTTP/1.1\r\nHost: 127.0.0.1:${http.port}\r\nCookie: ${cookie}\r\n` +
          "Content-Length: 0\r\n\r\n",
      ),
    );
    const said = await outcome(conn, 2_000);
    conn.close();
    return said;
  };
  try {
    assert.equal(await ask("s=ok"), "open after: HTTP/1.1 200 OK");
    assert.equal(await ask("s=forged"), "closed", "closed while it waited, with no answer");
  } finally {
    await http.shutdown();
  }
});

Deno.test("a port taken by another program is said, with what to do, and nothing is left running", () => {
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  assert.throws(
    () =>
      serveHttp({
        port,
        token: "t".repeat(64),
        newServer: () => buildMcpServer(() => Promise.reject(new Error("no tools here"))),
      }),
    (error: Error) =>
      error instanceof UserError &&
      error.message ===
        `port ${port} of 127.0.0.1 is taken by another program: give another --port (0 takes a free one)`,
  );
});
