/**
 * MCP over Streamable HTTP on 127.0.0.1: stateless (a fresh server per
 * request), JSON responses, and safe by default: a bearer token is required,
 * and requests whose Host or Origin is not this machine are refused, so a web
 * page cannot reach the store through DNS rebinding.
 * @module
 */
import { concatBytes } from "../../events/bytes.ts";
import { answerChallenge, OWNER_PROOF_PATH } from "./owner_proof.ts";
import { MAX_MESSAGE_BYTES } from "./bounded_stdio.ts";
import {
  frontWithHeaderDeadline,
  type HeaderDeadline,
  type RequestHead,
} from "./header_deadline.ts";
import { UserError } from "../errors.ts";
import { dirname, join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { asksForProgress, whenRead } from "./streamed_answer.ts";
import { removeStaleSockets, SOCKET_FOLDER_PREFIX } from "./stale_sockets.ts";

/** The path MCP is served on. */
export const MCP_PATH = "/mcp";

/** Largest request body accepted, in bytes: the same bound as on stdio. */
const MAX_BODY_BYTES = MAX_MESSAGE_BYTES;

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Options for {@linkcode serveHttp}. */
export interface HttpOptions {
  /** 0 picks a free port. */
  port: number;
  /** The bearer token every request must carry. */
  token: string;
  /** A new MCP server for one request. */
  newServer: () => McpServer;
  /** Called at the start of every request (the owner's idle clock). */
  onRequest?: () => void;
  /** How long a connection may take to send its request headers; default 10 s. */
  headerDeadlineMs?: number;
  /** Other paths served behind the same checks (the owner's relayed CLI commands). */
  routes?: Record<string, (request: Request) => Promise<Response>>;
  /**
   * Paths under `prefix` served behind the Host and Origin checks that
   * authenticate themselves (the web view's session cookie) instead of
   * carrying the bearer token; `port` is this server's.
   */
  pages?: {
    prefix: string;
    handle: (request: Request, port: number) => Promise<Response>;
    /** Whether a connection opened with `head` is the web view's (its session, or its login link). */
    trusts: (head: RequestHead, port: number) => Promise<boolean>;
  };
}

/** A running HTTP server. */
export interface HttpServer {
  port: number;
  finished: Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Serves MCP on 127.0.0.1 at {@linkcode MCP_PATH}. The server itself listens
 * on a Unix socket in a folder of its own; the port is a front that passes on
 * only connections whose request headers arrive in time (`header_deadline.ts`).
 */
export function serveHttp(options: HttpOptions): HttpServer {
  const folder = Deno.makeTempDirSync({ prefix: SOCKET_FOLDER_PREFIX });
  const socket = join(folder, "http.sock");
  let port = 0;
  const trusted = async (head: RequestHead) =>
    sameToken(head.headers.get("authorization"), options.token) ||
    (await options.pages?.trusts(head, port) ?? false);
  // The port first: taken by another program, nothing else is started.
  let front: HeaderDeadline;
  try {
    front = frontWithHeaderDeadline(options.port, socket, trusted, options.headerDeadlineMs);
  } catch (error) {
    Deno.removeSync(folder, { recursive: true });
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    throw new UserError(
      `port ${options.port} of 127.0.0.1 is taken by another program: give another --port ` +
        "(0 takes a free one)",
    );
  }
  port = front.port;
  const server = Deno.serve(
    { path: socket, onListen: () => {} },
    (request): Promise<Response> => {
      options.onRequest?.();
      return handle(request, port, options);
    },
  );
  return {
    port,
    finished: server.finished,
    shutdown: async () => {
      // Requests under way are answered first (the step-aside request among them).
      await server.shutdown();
      front.close();
      await Deno.remove(folder, { recursive: true }).catch(() => {});
      // And those of owners that were killed.
      await removeStaleSockets(dirname(folder));
    },
  };
}

async function handle(request: Request, port: number, options: HttpOptions): Promise<Response> {
  const url = new URL(request.url);
  const route = options.routes && Object.hasOwn(options.routes, url.pathname)
    ? options.routes[url.pathname]
    : undefined;
  const pages = options.pages;
  const page = pages !== undefined &&
    (url.pathname === pages.prefix || url.pathname.startsWith(`${pages.prefix}/`));
  if (url.pathname !== MCP_PATH && url.pathname !== OWNER_PROOF_PATH && !route && !page) {
    return refuse(404, `not found; MCP is served at ${MCP_PATH}`);
  }
  if (!isLocalHost(request.headers.get("host"), port)) {
    return refuse(403, "Host must be 127.0.0.1 or localhost with this server's port");
  }
  const origin = request.headers.get("origin");
  if (origin !== null && !isLocalOrigin(origin)) {
    return refuse(403, `Origin ${origin} is not local; requests from web pages are refused`);
  }
  if (url.pathname === OWNER_PROOF_PATH) return await answerChallenge(url, options.token);
  if (page) {
    const bounded = await withBoundedBody(request);
    return bounded ? await pages.handle(bounded, port) : refuse(413, "the request is too large");
  }
  if (!sameToken(request.headers.get("authorization"), options.token)) {
    return refuse(401, "a bearer token is required: Authorization: Bearer <store>/serve.token", {
      "WWW-Authenticate": 'Bearer realm="cairn"',
    });
  }
  const read = await withBoundedBody(request);
  if (!read) {
    return refuse(
      413,
      `a request of more than ${MAX_BODY_BYTES / 2 ** 20} MiB is refused; send less ` +
        "(a shorter text, fewer items)",
    );
  }
  request = read;
  if (route) return await route(request);
  const server = options.newServer();
  // No session id generator: stateless, each request stands alone. A call that asks for
  // progress is answered in a stream, so that its progress reaches the client before the answer.
  const streamed = await asksForProgress(request);
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: !streamed });
  let response: Response;
  try {
    await server.connect(transport);
    response = await transport.handleRequest(request);
  } catch (error) {
    await server.close();
    throw error;
  }
  if (!streamed || !response.body) {
    await server.close();
    return response;
  }
  const { status, statusText, headers } = response;
  return new Response(whenRead(response.body, () => server.close()), {
    status,
    statusText,
    headers,
  });
}

/**
 * The request with its body read into memory, or undefined once the body
 * passes {@linkcode MAX_BODY_BYTES}: counted as it arrives, so a body sent
 * without a Content-Length (or with a false one) is bounded too.
 */
async function withBoundedBody(request: Request): Promise<Request | undefined> {
  if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) return undefined;
  if (!request.body) return request;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  const body = concatBytes(chunks);
  return new Request(request.url, { method: request.method, headers: request.headers, body });
}

/** A refusal, closing its connection: one that was refused is not kept open, idle. */
function refuse(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error: message }, {
    status,
    headers: { ...headers, connection: "close" },
  });
}

function isLocalHost(host: string | null, port: number): boolean {
  if (!host) return false;
  const colon = host.lastIndexOf(":");
  if (colon < 0 || host.endsWith("]")) return false;
  return LOOPBACK.has(host.slice(0, colon).toLowerCase()) && host.slice(colon + 1) === `${port}`;
}

function isLocalOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK.has(url.hostname);
  } catch {
    return false;
  }
}

/** Compares in time independent of where the strings differ. */
function sameToken(header: string | null, token: string): boolean {
  const given = new TextEncoder().encode(header?.startsWith("Bearer ") ? header.slice(7) : "");
  const expected = new TextEncoder().encode(token);
  let difference = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) difference |= expected[i]! ^ (given[i] ?? 0);
  return difference === 0;
}
