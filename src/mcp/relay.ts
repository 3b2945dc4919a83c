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
import { selfCommand } from "../cli/self_command.ts";
import { CALLER_META, thisCaller } from "./caller.ts";
import type { ToolCall, ToolResult } from "./handlers.ts";
import { MCP_PATH } from "./http.ts";
import { neverSent, ownerDied, ownerFetch } from "./owner_death.ts";
import { ownerFiles, readOwnerRecord, readToken } from "./owner_file.ts";
import { provesOwner } from "./owner_proof.ts";

/** How long a relay waits for an owner to start before giving up. */
const START_TIMEOUT_MS = 60_000;

/** Longest a call may take (indexing a large repository is the slow one). */
const CALL_TIMEOUT_MS = 30 * 60 * 1000;

/** An owner started by a relay exits after this long without a request. */
const OWNER_IDLE_SECONDS = 30 * 60;

/** Options for {@linkcode OwnerRelay}. */
export interface RelayOptions {
  storeDir: string;
  /** Where the relay says what it does (never standard output). */
  log?: (line: string) => void;
  /** How long to wait for a new owner; default 60 s. */
  startTimeoutMs?: number;
}

/** Forwards tool calls to the store's owner, starting it when needed. */
export class OwnerRelay {
  #client: Promise<Client> | undefined;
  readonly #log: (line: string) => void;

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
    const _meta = { [CALLER_META]: caller };
    for (let attempt = 1;; attempt++) {
      const client = await this.#connect();
      try {
        return await client.callTool({ name, arguments: args, _meta }, undefined, {
          timeout: CALL_TIMEOUT_MS,
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
      }
    }
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
    const { storeDir } = this.options;
    const deadline = Date.now() + (this.options.startTimeoutMs ?? START_TIMEOUT_MS);
    let child: { exited: boolean; at: number } | undefined;
    while (true) {
      const record = await readOwnerRecord(storeDir);
      const token = await readToken(storeDir);
      if (record && token) {
        const client = await tryConnect(record.port, token);
        if (client) return client;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `the store's owner (cairn serve) did not start; see ${ownerFiles(storeDir).log}` +
            (await logTail(storeDir)),
        );
      }
      // Another relay may have started an owner that is still opening the store:
      // a new one would find the store locked and exit, so try again after a pause.
      if (!child || (child.exited && Date.now() - child.at > 1000)) {
        const started = { exited: false, at: Date.now() };
        this.#log(`cairn mcp: starting the store's owner (cairn serve) for ${storeDir}`);
        startOwner(storeDir).then(() => (started.exited = true));
        child = started;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Starts `cairn serve` for the store, detached so it outlives this process; resolves on its exit. */
function startOwner(storeDir: string): Promise<unknown> {
  const log = ownerFiles(storeDir).log;
  const { exec, args } = selfCommand([
    "--store",
    storeDir,
    "serve",
    "--idle-timeout",
    `${OWNER_IDLE_SECONDS}`,
    "--log",
    log,
  ]);
  const child = new Deno.Command(exec, {
    args,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
  return child.status;
}

async function tryConnect(port: number, token: string): Promise<Client | undefined> {
  if (!await provesOwner(port, token)) return undefined;
  const client = new Client({ name: "cairn-relay", version: "0.1.0" });
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

async function logTail(storeDir: string): Promise<string> {
  try {
    const text = await Deno.readTextFile(ownerFiles(storeDir).log);
    const lines = text.trim().split("\n").slice(-5).join("\n");
    return lines ? `; its last lines:\n${lines}` : "";
  } catch {
    return "";
  }
}
