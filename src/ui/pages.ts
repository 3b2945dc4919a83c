/**
 * The web view as the owner serves it under `/ui`, behind the owner's Host
 * and Origin checks (`src/mcp/http.ts`): the one-time login link, then the
 * page, its files and its JSON routes for whoever holds the session cookie.
 * A page of another origin cannot use the view: an Origin other than this
 * server's, or a browser's cross-origin `Sec-Fetch-Site`, is refused, the
 * routes take POST only, and every answer forbids framing and outside scripts.
 * @module
 */
import { classify, type FailureKind } from "../ops/failure.ts";
import type { Caller } from "../ops/operation.ts";
import type { RequestHead } from "../mcp/header_deadline.ts";
import type { Cairn } from "../service/cairn.ts";
import { API_ROUTES } from "./api.ts";
import {
  cookieName,
  cookieValue,
  LOGIN_PATH,
  sessionCookie,
  UI_PREFIX,
  UiSessions,
} from "./auth.ts";

/** Where the JSON routes are. */
export const API_PREFIX = `${UI_PREFIX}/api/`;
const ASSET_PREFIX = `${UI_PREFIX}/assets/`;

/** What the web view serves from. */
export interface UiOptions {
  cairn: Cairn;
  /** The owner's bearer token: it signs login links and session cookies. */
  token: string;
  /** Where a fault of cairn's own is written, with its stack. */
  log?: (line: string) => void;
}

/** The web view, as `serveHttp`'s `pages` option takes it. */
export interface UiPages {
  prefix: string;
  handle(request: Request, port: number): Promise<Response>;
  /**
   * Whether a connection opened with `head` is a logged-in browser's, or one
   * opening its login link: those may wait for a long answer (a purge).
   */
  trusts(head: RequestHead, port: number): Promise<boolean>;
}

const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'none'; script-src 'self'; " +
    // Cytoscape.js styles its container inline; scripts stay ours alone.
    "style-src 'self' 'unsafe-inline'; " +
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; " +
    "form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

const STATUS: Record<FailureKind, number> = {
  bad_input: 400,
  not_found: 404,
  not_ready: 503,
  damaged: 500,
  disk_full: 507,
  internal: 500,
};

/** The web view over the open store `options.cairn`. */
export function uiPages(options: UiOptions): UiPages {
  const sessions = new UiSessions(options.token);
  const caller: Caller = { cwd: Deno.cwd(), roots: [] };
  return {
    prefix: UI_PREFIX,
    async trusts({ target, headers }, port) {
      if (await sessions.valid(cookieValue(headers.get("cookie"), cookieName(port)))) return true;
      const url = URL.parse(target, "http://127.0.0.1");
      return url?.pathname === LOGIN_PATH &&
        await sessions.openable(url.searchParams.get("code") ?? "");
    },
    async handle(request, port) {
      const url = new URL(request.url);
      const refusal = foreign(request, port);
      if (refusal) return refusal;
      if (url.pathname === LOGIN_PATH && request.method === "GET") {
        const value = await sessions.redeem(url.searchParams.get("code") ?? "");
        if (!value) {
          return text(
            401,
            "This link was used already or has expired: run `cairn ui` for a new one.",
          );
        }
        return new Response(null, {
          status: 303,
          headers: {
            ...SECURITY_HEADERS,
            location: `${UI_PREFIX}/`,
            "set-cookie": sessionCookie(port, value),
          },
        });
      }
      const cookie = cookieValue(request.headers.get("cookie"), cookieName(port));
      if (!await sessions.valid(cookie)) {
        return url.pathname.startsWith(API_PREFIX)
          ? json(401, { error: "not logged in: run `cairn ui` and open the link it prints" })
          : text(401, "Not logged in: run `cairn ui` and open the link it prints.");
      }
      if (url.pathname.startsWith(API_PREFIX)) {
        return await api(request, url.pathname.slice(API_PREFIX.length), options, caller);
      }
      if (request.method !== "GET") return text(405, "only GET here");
      // The page's files (Cytoscape among them) are loaded when first asked for, not with cairn.
      const { ASSETS, INDEX } = await import("./assets.ts");
      if (url.pathname === UI_PREFIX || url.pathname === `${UI_PREFIX}/`) return asset(INDEX);
      const file = url.pathname.startsWith(ASSET_PREFIX)
        ? ASSETS.get(url.pathname.slice(ASSET_PREFIX.length))
        : undefined;
      return file ? asset(file) : text(404, `nothing at ${url.pathname}`);
    },
  };
}

/**
 * A refusal for a request another origin made: an Origin that is not this
 * server's own (another local port is another site's page), or a browser
 * saying the request crosses origins.
 */
function foreign(request: Request, port: number): Response | undefined {
  const origin = request.headers.get("origin");
  const own = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
  if (origin !== null && !own.includes(origin)) {
    return json(403, { error: `Origin ${origin} is not this web view's; refused` });
  }
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    return json(403, { error: `a ${site} request is refused; open the web view itself` });
  }
  return undefined;
}

async function api(
  request: Request,
  name: string,
  { cairn, log }: UiOptions,
  caller: Caller,
): Promise<Response> {
  const route = Object.hasOwn(API_ROUTES, name) ? API_ROUTES[name] : undefined;
  if (!route) return json(404, { error: `no route ${name}` });
  if (request.method !== "POST") return json(405, { error: "the routes take POST with JSON" });
  const input = await request.json().catch(() => undefined);
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return json(400, { error: "send a JSON object" });
  }
  try {
    return json(200, await route({ cairn, caller }, input));
  } catch (error) {
    const failure = classify(error);
    if (failure.kind === "internal") {
      (log ?? console.error)(`cairn ui: ${name} failed: ${(error as Error).stack ?? error}`);
    }
    return json(STATUS[failure.kind], { error: failure.message, kind: failure.kind });
  }
}

function asset({ body, type }: { body: string; type: string }): Response {
  return new Response(body, { headers: { ...SECURITY_HEADERS, "content-type": type } });
}

function json(status: number, body: unknown): Response {
  return new Response(
    JSON.stringify(body, (_, value) => typeof value === "bigint" ? Number(value) : value),
    { status, headers: { ...SECURITY_HEADERS, "content-type": "application/json" } },
  );
}

function text(status: number, body: string): Response {
  return new Response(body, {
    status,
    headers: { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" },
  });
}
