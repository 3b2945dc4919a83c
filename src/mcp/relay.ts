/**
 * The relay from a `cairn mcp` (stdio) to the store's owner (`cairn serve`,
 * MCP over HTTP). It finds the owner through `<store>/serve.json`, starts one
 * when none answers, and when the owner dies between calls starts another
 * and sends the call again.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CALLER_META, thisCaller } from "./caller.ts";
import type { ToolCall } from "./handlers.ts";
import type { ToolResult } from "./tools.ts";
import { MCP_PATH } from "./http.ts";
import { neverSent, ownerDied, ownerFetch } from "./owner_death.ts";
import { startedOwner } from "./owner_start.ts";

/** Longest a call may take (indexing a large repository is the slow one). */
const CALL_TIMEOUT_MS = 30 * 60 * 1000;

/** Options for {@linkcode OwnerRelay}. */
export interface RelayOptions {
  storeDir: string;
  /** Where the relay says what it does (never standard output). */
  log?: (line: string) => void;
  /** How long to wait for a new owner; default 5 minutes. */
  startTimeoutMs?: number;
}

/** Forwards tool calls to the store's owner, starting it when needed. */
export class OwnerRelay {
  #client: Promise<Client> | undefined;
  readonly #log: (line: string) => void;
  /**
   * Calls answered in a stream (those that asked for progress): when the
   * stream breaks, the SDK reports it but leaves the call waiting, so the
   * relay ends those calls itself.
   */
  readonly #streamed = new Set<AbortController>();

  constructor(private readonly options: RelayOptions) {
    this.#log = options.log ?? ((line) => console.error(line));
  }

  /** Finds or starts the owner in the background, so the first call does not wait as long. */
  warm(): void {
    this.#connect().catch(() => {});
  }

  /**
   * Calls a tool on the owner. A call that never reached the owner (it had
   * died before) goes to a new one; a call the owner died while answering is
   * never sent again, since it may be what stopped it.
   */
  call: ToolCall = async (name, args, caller = thisCaller()) => {
    // The owner serves many clients: each call says whose folder and roots it is for.
    const _meta = { [CALLER_META]: { cwd: caller.cwd, roots: caller.roots } };
    // The owner's progress goes on to the client, and shows the call is alive.
    const progress = caller.progress;
    const onprogress = progress
      ? (p: { progress: number; total?: number | undefined; message?: string | undefined }) =>
        progress(p.message ?? "", p.total ? p.progress / p.total : undefined)
      : undefined;
    for (let attempt = 1;; attempt++) {
      const client = await this.#connect();
      const streamed = onprogress ? new AbortController() : undefined;
      if (streamed) this.#streamed.add(streamed);
      try {
        return await client.callTool({ name, arguments: args, _meta }, undefined, {
          timeout: CALL_TIMEOUT_MS,
          ...(onprogress && streamed
            ? { onprogress, resetTimeoutOnProgress: true, signal: streamed.signal }
            : {}),
        }) as ToolResult;
      } catch (error) {
        if (!isUnreachable(error)) throw error;
        this.#client = undefined;
        await client.close().catch(() => {});
        if (!neverSent(error)) {
          throw await ownerDied(this.options.storeDir, `the ${name} tool`, error);
        }
        if (attempt === 2) throw error;
        this.#log(
          `cairn mcp: the store's owner stopped answering (${errorText(error)}); restarting`,
        );
      } finally {
        if (streamed) this.#streamed.delete(streamed);
      }
    }
  };

  /** Ends the calls answered in a stream once a stream broke: the owner is gone. */
  #streamBroke = (error: Error) => {
    if (!/SSE stream disconnected/.test(error.message)) return;
    for (const call of this.#streamed) call.abort(new Error(`connection closed: ${error.message}`));
  };

  /** Disconnects from the owner (which keeps running for other clients). */
  async close(): Promise<void> {
    const client = await this.#client?.catch(() => undefined);
    this.#client = undefined;
    await client?.close().catch(() => {});
  }

  #connect(): Promise<Client> {
    this.#client ??= this.#open().catch((error) => {
      this.#client = undefined;
      throw error;
    });
    return this.#client;
  }

  async #open(): Promise<Client> {
    let client: Client | undefined;
    // Without giveUpAfterExitMs it resolves with an owner it accepted, or rejects.
    await startedOwner(this.options.storeDir, {
      log: this.#log,
      ...(this.options.startTimeoutMs ? { timeoutMs: this.options.startTimeoutMs } : {}),
      accept: async ({ port, token }) =>
        (client = await tryConnect(port, token, this.#streamBroke)) !== undefined,
    });
    return client!;
  }
}

async function tryConnect(
  port: number,
  token: string,
  onError: (error: Error) => void,
): Promise<Client | undefined> {
  const client = new Client({ name: "cairn-relay", version: "0.1.0" });
  client.onerror = onError;
  const transport = new StreamableHTTPClientTransport(
    new URL(`http://127.0.0.1:${port}${MCP_PATH}`),
    { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: ownerFetch },
  );
  try {
    await client.connect(transport, { timeout: 5000 });
    return client;
  } catch {
    await client.close().catch(() => {});
    return undefined;
  }
}

/** True when the owner could not be reached (as opposed to answering with an error). */
function isUnreachable(error: unknown): boolean {
  return error instanceof TypeError || /connect|refused|reset|closed/i.test(errorText(error));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
