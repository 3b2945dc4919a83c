/**
 * MCP's stdio transport with a bound on each message. The SDK's own buffers a
 * message whole, copying it at every chunk, and closes itself past 10 MB: a
 * client that sends tens of megabytes gets no answer and the process stays
 * behind. Here a message over {@linkcode MAX_MESSAGE_BYTES} is read through
 * and dropped as it arrives, answered with an error, and reading goes on.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { concatBytes } from "../../events/bytes.ts";
import { requestIdOf, RequestIdScanner } from "./request_id.ts";

/** The largest message read, in bytes: as for HTTP (a 64 KB query in its envelope, with room). */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A stdio transport that reads `input` and writes `output` (standard input and output by default). */
export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #closed = false;
  #reading: Promise<void> | undefined;

  constructor(
    private readonly input: ReadableStream<Uint8Array> = Deno.stdin.readable,
    private readonly output: WritableStreamDefaultWriter<Uint8Array> = Deno.stdout.writable
      .getWriter(),
  ) {}

  start(): Promise<void> {
    this.#reading = this.#read().finally(() => this.close());
    return Promise.resolve();
  }

  /** Resolves once the input has ended (the client went away) and the transport is closed. */
  async ended(): Promise<void> {
    await this.#reading;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.output.write(encoder.encode(`${JSON.stringify(message)}\n`));
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.onclose?.();
    return Promise.resolve();
  }

  async #read(): Promise<void> {
    let parts: Uint8Array[] = [];
    let size = 0;
    // An oversized message is not kept: it goes through a scanner that finds its id.
    let oversized: { id: RequestIdScanner; bytes: number } | undefined;
    for await (const chunk of this.input) {
      let start = 0;
      for (let at = chunk.indexOf(NEWLINE);; at = chunk.indexOf(NEWLINE, start)) {
        const piece = chunk.subarray(start, at === -1 ? chunk.length : at);
        if (oversized) {
          oversized.id.feed(piece);
          oversized.bytes += piece.length;
        } else if (size + piece.length > MAX_MESSAGE_BYTES) {
          oversized = { id: new RequestIdScanner(), bytes: size + piece.length };
          for (const part of [...parts, piece]) oversized.id.feed(part);
          parts = [];
        } else {
          parts.push(piece);
          size += piece.length;
        }
        if (at === -1) break;
        if (oversized) await this.#refuse(oversized.id.id, oversized.bytes);
        else await this.#deliver(decoder.decode(concatBytes(parts)));
        parts = [];
        size = 0;
        oversized = undefined;
        start = at + 1;
      }
      if (this.#closed) return;
    }
  }

  async #deliver(line: string): Promise<void> {
    const text = line.replace(/\r$/, "");
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      await this.#error(requestIdOf(text), -32700, `not JSON: ${(error as Error).message}`);
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(value);
    if (!message.success) {
      await this.#error(requestIdOf(text), -32600, notJsonRpc(value));
      return;
    }
    this.onmessage?.(message.data);
  }

  async #refuse(id: string | number | null, bytes: number): Promise<void> {
    await this.#error(
      id,
      -32600,
      `a message of ${bytes} bytes is over the limit of ${MAX_MESSAGE_BYTES}; send less ` +
        "(a shorter text, fewer items)",
    );
  }

  async #error(id: string | number | null, code: number, message: string): Promise<void> {
    this.onerror?.(new Error(message));
    await this.output.write(
      encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`),
    );
  }
}

/** Why `value`, valid JSON, is not a message, in words a client's author can act on. */
function notJsonRpc(value: unknown): string {
  if (Array.isArray(value)) return "a batch (a JSON array) is not taken: send one message a line";
  return 'not a JSON-RPC 2.0 message: it needs "jsonrpc": "2.0" and either a "method" (a ' +
    'request or a notification) or a "result" or "error" (a response), and no other top-level field';
}
