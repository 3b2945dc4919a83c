/**
 * A TCP front for the owner's HTTP server that closes a connection whose
 * request headers do not arrive in time. Deno.serve keeps a connection that
 * sends nothing for as long as the peer likes, so anyone able to connect to
 * 127.0.0.1 could hold connections open without a token. Each connection's
 * first bytes are read here, up to the end of the headers, within a deadline;
 * then the connection is passed, bytes as they come, to the real server on a
 * Unix socket in a folder only this user can enter. A connection whose first
 * request is not trusted (it carries neither the token nor the web view's
 * session) is closed once it has been idle for as long, so one that was
 * refused cannot be kept open either; a trusted one may wait as long as its
 * answer takes (a purge from the web view).
 * @module
 */
import { concatBytes } from "../../events/bytes.ts";

/** How long a connection may take to send its request headers. */
const HEADER_DEADLINE_MS = 10_000;
/** Longest request head read before it is passed on (the server refuses longer ones). */
const MAX_HEAD_BYTES = 64 * 1024;
const HEAD_END = [0x0d, 0x0a, 0x0d, 0x0a];

/** The target and headers of a connection's first request, as the front reads them. */
export interface RequestHead {
  /** The request line's target: `/mcp`, `/ui/login?code=…`. */
  target: string;
  headers: Headers;
}

/** Whether a connection whose first request is `head` may stay open while nothing flows. */
export type TrustedHead = (head: RequestHead) => boolean | Promise<boolean>;

/** A running front: its port, and how to stop it. */
export interface HeaderDeadline {
  port: number;
  /**
   * Stops taking connections and drops those still sending their headers;
   * those passed on end with the server's side of them.
   */
  close(): void;
}

/**
 * Listens on 127.0.0.1:`port` and passes each connection, once its headers
 * are in, to `socket`; `trusted` tells the connections that may stay idle.
 */
export function frontWithHeaderDeadline(
  port: number,
  socket: string,
  trusted: TrustedHead,
  deadlineMs = HEADER_DEADLINE_MS,
): HeaderDeadline {
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  const waiting = new Set<Deno.Conn>();
  (async () => {
    for await (const conn of listener) {
      pass(conn, socket, trusted, deadlineMs, waiting).finally(() => closeQuietly(conn));
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    close: () => {
      closeQuietly(listener);
      for (const conn of waiting) closeQuietly(conn);
    },
  };
}

async function pass(
  conn: Deno.Conn,
  socket: string,
  trusted: TrustedHead,
  deadlineMs: number,
  waiting: Set<Deno.Conn>,
): Promise<void> {
  waiting.add(conn);
  const head = await readHead(conn, deadlineMs).finally(() => waiting.delete(conn));
  if (!head) return;
  const inner = await Deno.connect({ transport: "unix", path: socket });
  // Untrusted, a connection lives only while bytes flow.
  const idle = await trusted(parseHead(head)) ? undefined : idleCloser(conn, inner, deadlineMs);
  try {
    await writeRest(inner, head);
    await Promise.allSettled([
      conn.readable.pipeThrough(activity(idle)).pipeTo(inner.writable),
      inner.readable.pipeThrough(activity(idle)).pipeTo(conn.writable),
    ]);
  } finally {
    idle?.stop();
    closeQuietly(inner);
  }
}

/** The request line's target and the headers of a request head; lines that are no header are left out. */
function parseHead(head: Uint8Array): RequestHead {
  const [requestLine = "", ...lines] = new TextDecoder().decode(head).split("\r\n");
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    try {
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    } catch {
      // Not a valid header: the server refuses the request itself.
    }
  }
  return { target: requestLine.split(" ")[1] ?? "", headers };
}

interface IdleCloser {
  touch(): void;
  stop(): void;
}

/** Closes both connections once nothing has passed for `ms`. */
function idleCloser(conn: Deno.Conn, inner: Deno.Conn, ms: number): IdleCloser {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      closeQuietly(conn);
      closeQuietly(inner);
    }, ms);
  };
  touch();
  return { touch, stop: () => clearTimeout(timer) };
}

/** A pass-through stream that tells `idle` each time bytes go by. */
function activity(idle: IdleCloser | undefined): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream({
    transform(chunk, controller) {
      idle?.touch();
      controller.enqueue(chunk);
    },
  });
}

/** The bytes read up to and including the end of the headers; undefined if they do not come in time. */
async function readHead(conn: Deno.Conn, deadlineMs: number): Promise<Uint8Array | undefined> {
  const timer = setTimeout(() => closeQuietly(conn), deadlineMs);
  try {
    const parts: Uint8Array[] = [];
    let size = 0;
    const buffer = new Uint8Array(16 * 1024);
    while (size < MAX_HEAD_BYTES) {
      const read = await conn.read(buffer).catch(() => null);
      if (read === null) return undefined;
      parts.push(buffer.slice(0, read));
      size += read;
      if (endsHead(concatBytes(parts))) break;
    }
    return concatBytes(parts);
  } finally {
    clearTimeout(timer);
  }
}

function endsHead(bytes: Uint8Array): boolean {
  for (let at = bytes.indexOf(0x0d); at >= 0; at = bytes.indexOf(0x0d, at + 1)) {
    if (HEAD_END.every((byte, i) => bytes[at + i] === byte)) return true;
  }
  return false;
}

async function writeRest(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
}

function closeQuietly(closable: { close(): void }): void {
  try {
    closable.close();
  } catch {
    // Already closed.
  }
}
