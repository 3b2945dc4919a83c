/**
 * A test's web view: a store opened in this process with the fake embedder,
 * served by the owner's HTTP server with the web view's pages, as
 * `cairn serve` serves them.
 * @module
 */
import { join } from "node:path";
import { serveHttp } from "../../src/mcp/http.ts";
import { buildMcpServer } from "../../src/mcp/server.ts";
import { localTools } from "../../src/mcp/handlers.ts";
import { type Cairn, openCairn } from "../../src/service/cairn.ts";
import { loginLink } from "../../src/ui/auth.ts";
import { uiPages } from "../../src/ui/pages.ts";
import type { Embedder } from "../../text/embedder.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";

/** A running web view over a store in a temporary folder. */
export interface UiServer extends AsyncDisposable {
  cairn: Cairn;
  port: number;
  token: string;
  base: string;
  /** A fresh one-time login link. */
  link(): Promise<string>;
}

/** Opens a store in a new temporary folder and serves the web view over it. */
export async function startUiServer(embedder: Embedder = new FakeEmbedder()): Promise<UiServer> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-ui-test-" });
  const cairn = await openCairn(join(dir, "store"), { embedder });
  const token = "t".repeat(64);
  const http = serveHttp({
    port: 0,
    token,
    newServer: () => buildMcpServer(localTools(cairn, () => {})),
    pages: uiPages({ cairn, token, log: () => {} }),
  });
  // As `cairn serve` says it owns the store, once it listens.
  cairn.servedBy = { pid: Deno.pid, port: http.port, startedAt: new Date().toISOString() };
  return {
    cairn,
    port: http.port,
    token,
    base: `http://127.0.0.1:${http.port}`,
    link: () => loginLink(http.port, token),
    async [Symbol.asyncDispose]() {
      await http.shutdown();
      await cairn.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
