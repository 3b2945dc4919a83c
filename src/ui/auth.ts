/**
 * Who may see the web view: whoever opened a one-time link that `cairn ui`
 * printed. The link carries a login code signed with the owner's bearer token
 * (HMAC-SHA256), valid for a few minutes and redeemed once; redeeming it sets
 * a session cookie, itself signed with the token. A new owner draws a new
 * token, so its predecessor's links and cookies are worth nothing.
 * @module
 */

/** Where the web view is served. */
export const UI_PREFIX = "/ui";
/** The path a one-time link opens. */
export const LOGIN_PATH = `${UI_PREFIX}/login`;
/** How long a printed link may wait to be opened. */
export const LINK_TTL_MS = 5 * 60_000;
/** How long a session lasts once the link was opened. */
export const SESSION_TTL_MS = 12 * 3600_000;

/**
 * The session cookie's name. Cookies ignore ports, so two stores' owners on
 * 127.0.0.1 would overwrite one cookie: each port has its own.
 */
export function cookieName(port: number): string {
  return `cairn_ui_${port}`;
}

/**
 * A one-time link to the web view of the owner listening on `port` with `token`.
 * @example
 * ```ts
 * const link = await loginLink(8123, token);
 * // "http://127.0.0.1:8123/ui/login?code=1767…"
 * ```
 */
export async function loginLink(port: number, token: string, now = Date.now()): Promise<string> {
  const payload = `${now + LINK_TTL_MS}.${randomHex(16)}`;
  const code = `${payload}.${await sign(token, `login:${payload}`)}`;
  return `http://127.0.0.1:${port}${LOGIN_PATH}?code=${code}`;
}

/** The sessions of one owner: redeems login codes (each once) and checks session cookies. */
export class UiSessions {
  /** Codes redeemed and not yet expired, by nonce, with their expiry. */
  readonly #redeemed = new Map<string, number>();

  constructor(private readonly token: string) {}

  /**
   * The session cookie's value for login `code`, or undefined when the code
   * is forged, expired or was redeemed before.
   */
  async redeem(code: string, now = Date.now()): Promise<string | undefined> {
    const login = await this.#openable(code, now);
    if (!login) return undefined;
    this.#redeemed.set(login.nonce, login.expiry);
    const session = `${now + SESSION_TTL_MS}.${randomHex(16)}`;
    return `${session}.${await sign(this.token, `session:${session}`)}`;
  }

  /** Whether login `code` would be redeemed now: signed by this owner, not expired, not used. */
  async openable(code: string, now = Date.now()): Promise<boolean> {
    return (await this.#openable(code, now)) !== undefined;
  }

  async #openable(
    code: string,
    now: number,
  ): Promise<{ nonce: string; expiry: number } | undefined> {
    const [expires, nonce, mac] = code.split(".");
    if (!expires || !nonce || !mac || code.split(".").length !== 3) return undefined;
    const expiry = Number(expires);
    if (!Number.isSafeInteger(expiry) || expiry < now) return undefined;
    if (!sameText(mac, await sign(this.token, `login:${expires}.${nonce}`))) return undefined;
    for (const [seen, until] of this.#redeemed) if (until < now) this.#redeemed.delete(seen);
    return this.#redeemed.has(nonce) ? undefined : { nonce, expiry };
  }

  /** Whether `value` is a session cookie this owner set and that has not expired. */
  async valid(value: string | undefined, now = Date.now()): Promise<boolean> {
    const parts = value?.split(".") ?? [];
    if (parts.length !== 3) return false;
    const [expires, id, mac] = parts as [string, string, string];
    const expiry = Number(expires);
    if (!Number.isSafeInteger(expiry) || expiry < now) return false;
    return sameText(mac, await sign(this.token, `session:${expires}.${id}`));
  }
}

/** The value of cookie `name` in a request's Cookie header. */
export function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of header?.split(";") ?? []) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The Set-Cookie header for session `value` on `port`: HttpOnly, SameSite=Strict, the web view only. */
export function sessionCookie(port: number, value: string): string {
  const seconds = Math.floor(SESSION_TTL_MS / 1000);
  return `${cookieName(port)}=${value}; Path=${UI_PREFIX}; HttpOnly; SameSite=Strict; ` +
    `Max-Age=${seconds}`;
}

async function sign(token: string, text: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(token),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(text)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

function randomHex(bytes: number): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** Compares in time independent of where the strings differ. */
function sameText(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) difference |= b.charCodeAt(i) ^ (a.charCodeAt(i) || 0);
  return difference === 0;
}
