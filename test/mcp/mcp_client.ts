/**
 * Test helpers that drive the real cairn MCP server with the SDK client:
 * over stdio (`cairn mcp`, spawned), over HTTP (`cairn serve`), and in
 * memory over a store this process holds.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { localTools } from "../../src/mcp/handlers.ts";
import { readOwnerRecord, readToken } from "../../src/mcp/owner_file.ts";
import { buildMcpServer } from "../../src/mcp/server.ts";
import type { Cairn } from "../../src/service/cairn.ts";
import { MAIN } from "../helpers.ts";

/** The environment a spawned cairn needs (the stdio transport passes a bare one). */
export function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(Deno.env.toObject())) {
    if (["DENO_DIR", "HOME", "PATH"].includes(key) || key.startsWith("CAIRN_")) env[key] = value;
  }
  return env;
}

/** An SDK client connected to `cairn --store <store> mcp` over stdio. */
export async function stdioClient(
  store: string,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<Client & AsyncDisposable> {
  const client = new Client({ name: "cairn-test", version: "0.0.0" });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--quiet", MAIN, "--store", store, "mcp", ...extraArgs],
    env: { ...childEnv(), ...env },
    stderr: "pipe",
    ...(cwd ? { cwd } : {}),
  });
  await client.connect(transport);
  notificationsFirst(transport);
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/**
 * Makes the client take each response after the notifications read before it.
 * The SDK's client (1.32.2) handles a notification a microtask after reading
 * it but a response at once, and forgets the call's progress handler then: a
 * progress notification read in the same chunk as its call's answer (the test
 * process was busy while both arrived) was dropped as "unknown token"
 * (modelcontextprotocol/typescript-sdk#2580). cairn sends progress before the
 * answer; this is the client keeping that order.
 */
function notificationsFirst(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    if ("method" in message) deliver(message, extra);
    else queueMicrotask(() => deliver(message, extra));
  };
}

/** An SDK client connected to the store's running owner over HTTP. */
export async function httpClient(store: string): Promise<Client & AsyncDisposable> {
  const record = await readOwnerRecord(store);
  const token = await readToken(store);
  if (!record || !token) throw new Error(`no owner is running for ${store}`);
  const client = new Client({ name: "cairn-test", version: "0.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${record.port}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/** The text of a tool result's first content block. */
export function text(result: unknown): string {
  const content = (result as { content: Array<{ text?: string }> }).content;
  return content[0]?.text ?? "";
}

/**
 * Stops the store's owner and waits for it to go. An owner still starting is
 * waited for (up to 15 s), so no test leaves one running; one that does not
 * stop within 10 s is killed and the test fails.
 */
export async function killOwner(store: string, signal: Deno.Signal = "SIGTERM"): Promise<void> {
  let record = await readOwnerRecord(store);
  for (let i = 0; i < 300 && !(record && isAlive(record.pid)); i++) {
    await delay(50);
    record = await readOwnerRecord(store);
  }
  if (!record || !isAlive(record.pid)) return;
  Deno.kill(record.pid, signal);
  for (let i = 0; i < 400 && isAlive(record.pid); i++) await delay(25);
  if (isAlive(record.pid)) {
    Deno.kill(record.pid, "SIGKILL");
    throw new Error(`the owner (pid ${record.pid}) did not stop within 10 s of ${signal}`);
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether process `pid` still runs. */
export function isAlive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

/** Starts `cairn serve` on the store and waits until it listens. */
export async function startServe(
  store: string,
  env: Record<string, string> = {},
): Promise<Deno.ChildProcess & AsyncDisposable> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, "--store", store, "serve", "--port", "0"],
    env,
    stdout: "null",
    stderr: "null",
  }).spawn();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    await child.status;
  };
  for (let i = 0; i < 600 && (await readOwnerRecord(store))?.pid !== child.pid; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if ((await readOwnerRecord(store))?.pid !== child.pid) {
    await stop();
    throw new Error("cairn serve did not start");
  }
  return Object.assign(child, { [Symbol.asyncDispose]: stop });
}

/**
 * A client of cairn's MCP server over the open store `cairn`, linked in
 * memory; disposing closes both (the store stays open).
 */
export async function inMemoryClient(cairn: Cairn): Promise<Client & AsyncDisposable> {
  const server = buildMcpServer(localTools(cairn));
  const client = new Client({ name: "cairn-test", version: "0.0.0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return Object.assign(client, {
    [Symbol.asyncDispose]: async () => {
      await client.close();
      await server.close();
    },
  });
}
