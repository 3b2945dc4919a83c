/**
 * The id of a JSON-RPC request read byte by byte, as a message too large to
 * keep goes by: the `"id"` member of the outermost object, wherever it is
 * (the official client writes it last), never one inside the parameters.
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x7b, 0x5b]);
const CLOSE = new Set([0x7d, 0x5d]);
const COMMA = 0x2c;
const COLON = 0x3a;
/** An id longer than this is not kept (no client sends one). */
const MAX_ID_BYTES = 256;
const decoder = new TextDecoder();

/** Follows a JSON text fed in pieces and keeps its top-level `id`. */
export class RequestIdScanner {
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** At the outermost level, after `{` or `,`: the next string is a key. */
  #expectingKey = false;
  /** The bytes of the top-level key being read, or of the id's value. */
  #capture: number[] | undefined;
  #capturing: "key" | "id" | undefined;
  #lastKey = "";
  #id: string | number | null = null;

  /** Reads the next piece of the text. */
  feed(bytes: Uint8Array): void {
    for (let at = 0; at < bytes.length; at++) {
      // The bulk of a large message is a string's content: skip to where it may end.
      if (this.#inString && !this.#escaped && !this.#capture) {
        const quote = bytes.indexOf(QUOTE, at);
        const backslash = bytes.indexOf(BACKSLASH, at);
        const next = Math.min(
          quote === -1 ? bytes.length : quote,
          backslash === -1 ? bytes.length : backslash,
        );
        if (next === bytes.length) return;
        at = next;
      }
      this.#step(bytes[at]!);
    }
  }

  /** The id, once its value has been read whole; null when there is none (yet). */
  get id(): string | number | null {
    return this.#id;
  }

  #step(byte: number): void {
    if (this.#capture && this.#capture.length < MAX_ID_BYTES) this.#capture.push(byte);
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (byte === BACKSLASH) this.#escaped = true;
      else if (byte === QUOTE) {
        this.#inString = false;
        if (this.#capturing === "key") this.#endKey();
        else if (this.#capturing === "id") this.#endId();
      }
      return;
    }
    const topLevel = this.#depth === 1;
    if (byte === QUOTE) {
      this.#inString = true;
      if (topLevel && this.#capturing === undefined && this.#expectingKey) {
        this.#capturing = "key";
        this.#capture = [byte];
      }
    } else if (OPEN.has(byte)) {
      this.#depth++;
      if (this.#depth === 1) this.#expectingKey = true;
      if (this.#capturing === "id") {
        this.#lastKey = "";
        this.#stopCapture();
      }
    } else if (CLOSE.has(byte) || (byte === COMMA && topLevel)) {
      if (this.#capturing === "id" && topLevel) this.#endId(true);
      if (CLOSE.has(byte)) this.#depth--;
      else this.#expectingKey = true;
    } else if (byte === COLON && topLevel && this.#lastKey === "id") {
      this.#capturing = "id";
      this.#capture = [];
    }
  }

  #endKey(): void {
    const key = this.#decoded();
    this.#lastKey = typeof key === "string" ? key : "";
    this.#expectingKey = false;
    this.#stopCapture();
  }

  /** The id's value ends: with its closing quote, or (a number) with the `,` or `}` after it. */
  #endId(delimited = false): void {
    if (delimited) this.#capture?.pop();
    const value = this.#decoded();
    if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value))) {
      this.#id = value;
    }
    this.#lastKey = "";
    this.#stopCapture();
  }

  #decoded(): unknown {
    if (!this.#capture || this.#capture.length >= MAX_ID_BYTES) return undefined;
    try {
      return JSON.parse(decoder.decode(new Uint8Array(this.#capture)));
    } catch {
      return undefined;
    }
  }

  #stopCapture(): void {
    this.#capture = undefined;
    this.#capturing = undefined;
  }
}

/** The top-level id of the JSON-RPC text `text`, if it can be read. */
export function requestIdOf(text: string): string | number | null {
  const scanner = new RequestIdScanner();
  scanner.feed(new TextEncoder().encode(text));
  return scanner.id;
}
