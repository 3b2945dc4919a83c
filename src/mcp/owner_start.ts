/**
 * Finding a store's owner (`cairn serve`), and starting one when none
 * answers: detached, logging to `<store>/serve.log`, stopping by itself after
 * half an hour without a request. `cairn mcp` and every CLI command that
 * reads or writes the store come here, so only the owner loads the model and
 * opens the projections.
 * @module
 */
import { currentHolder, describeHolder, type LockHolder } from "../../events/lock.ts";
import { selfCommand } from "./self_command.ts";
import { ownerFiles, readOwnerRecord, readToken } from "./owner_file.ts";
import { provesOwner } from "./owner_proof.ts";
import { ownerFetch } from "./owner_death.ts";
import { buildStamp } from "./build_stamp.ts";

/** An owner started here exits after this long without a request. */
const OWNER_IDLE_SECONDS = 30 * 60;

/**
 * How long to wait for a new owner to open the store, while it is alive:
 * `CAIRN_OWNER_START_SECONDS`, default five minutes (a store whose
 * projections are rebuilt on open can take that long).
 */
function startTimeoutMs(): number {
  const seconds = Number(Deno.env.get("CAIRN_OWNER_START_SECONDS") ?? 300);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 300_000;
}

/**
 * The exit code of an owner that found the store held by another process
 * (another client's owner still opening it, or a `--no-owner` command): worth
 * trying again, unlike any other failure.
 */
export const STORE_IN_USE_EXIT = 75;

/** Raised when no owner came up for the store: its message ends with the owner's log. */
export class OwnerNotStarted extends Error {
  override name = "OwnerNotStarted";
}

/** Where an owner that proved itself listens. */
export interface OwnerAddress {
  pid: number;
  port: number;
  token: string;
  startedAt: string;
  /** When its code last changed (see `build_stamp.ts`); absent from owners older than that. */
  build?: number;
}

/** The store's owner, if one answers and proves it holds the store's token. */
export async function runningOwner(storeDir: string): Promise<OwnerAddress | undefined> {
  const record = await readOwnerRecord(storeDir);
  const token = record ? await readToken(storeDir) : undefined;
  if (!record || !token || !await provesOwner(record.port, token)) return undefined;
  return {
    pid: record.pid,
    port: record.port,
    token,
    startedAt: record.started_at,
    ...(record.build === undefined ? {} : { build: record.build }),
  };
}

/** The path an owner is asked to step aside on (with the token). */
export const STEP_ASIDE_PATH = "/step-aside";

/**
 * Asks the store's owner, if one runs, to finish what it is doing, close the
 * store and exit; resolves to its pid once it was asked, undefined when none runs.
 */
export async function stopOwner(storeDir: string): Promise<number | undefined> {
  const owner = await runningOwner(storeDir);
  return owner && await askToStepAside(owner) ? owner.pid : undefined;
}

async function askToStepAside(owner: OwnerAddress): Promise<boolean> {
  const response = await ownerFetch(`http://127.0.0.1:${owner.port}${STEP_ASIDE_PATH}`, {
    method: "POST",
    headers: { authorization: `Bearer ${owner.token}` },
  }).catch(() => undefined);
  await response?.body?.cancel();
  return response?.ok === true;
}

/** Whether `owner` runs code older than this process's (an owner that records none does). */
function runsOlderCode(owner: OwnerAddress): boolean {
  return (owner.build ?? 0) < buildStamp();
}

/** Options for {@linkcode startedOwner}. */
export interface StartOptions {
  /** Where it says that it starts an owner (never standard output). */
  log: (line: string) => void;
  /** How long to wait; default `CAIRN_OWNER_START_SECONDS` or 5 minutes. */
  timeoutMs?: number;
  /** Whether an owner may `accept` the address (the relay checks it can connect). */
  accept?: (owner: OwnerAddress) => Promise<boolean>;
  /**
   * Once the owner started here has exited and none answered for this long,
   * resolve undefined instead of starting another; at once when it failed
   * for another reason than the store being in use. Unset: start another
   * after a second while the store is in use, until the timeout.
   */
  giveUpAfterExitMs?: number;
}

/**
 * The store's owner, started when none answers. An owner another client
 * started and that is still opening the store is waited for; one started here
 * that found the store in use is started again after a second (or given up,
 * see {@linkcode StartOptions.giveUpAfterExitMs}), until the timeout. While a
 * command that is not an owner holds the store (`cairn --no-owner reembed`),
 * none is started: given up at once, or waited out. Rejects with the tail of
 * the owner's log when none came up, at once when the owner started here
 * failed (a config.json it refuses, a store it cannot create).
 */
export async function startedOwner(
  storeDir: string,
  options: StartOptions,
): Promise<OwnerAddress | undefined> {
  const timeoutMs = options.timeoutMs ?? startTimeoutMs();
  const deadline = Date.now() + timeoutMs;
  let child: StartedChild | undefined;
  // A command that is not an owner and holds the store to itself, as last seen.
  let heldBy: LockHolder | undefined;
  // The owner asked to step aside for running older code, while it finishes.
  let replaced: number | undefined;
  while (true) {
    let owner = await runningOwner(storeDir);
    if (owner && owner.pid === replaced) owner = undefined;
    else if (owner && runsOlderCode(owner) && await askToStepAside(owner)) {
      options.log(
        `cairn: the store's owner (pid ${owner.pid}) runs an older cairn; it steps aside for ` +
          "this one",
      );
      replaced = owner.pid;
      owner = undefined;
    }
    if (owner && (!options.accept || await options.accept(owner))) return owner;
    const failed = child?.exit !== undefined && child.exit.code !== 0 &&
      child.exit.code !== STORE_IN_USE_EXIT;
    if (failed && options.giveUpAfterExitMs !== undefined) return undefined;
    if (heldBy && Date.now() > deadline) {
      throw new OwnerNotStarted(
        `the store's owner (cairn serve) could not start within ${timeoutMs / 1000} s: ` +
          `${describeHolder(heldBy)} holds the store to itself`,
      );
    }
    if (failed || Date.now() > deadline) {
      const why = failed ? "did not start" : `did not answer within ${timeoutMs / 1000} s`;
      throw new OwnerNotStarted(
        `the store's owner (cairn serve) ${why}; see ${ownerFiles(storeDir).log}` +
          (await logTail(storeDir)),
      );
    }
    // Another client may have started an owner that is still opening the store:
    // a new one would find the store in use and exit, so try again after a pause.
    const exitedFor = child?.exit === undefined ? 0 : Date.now() - child.exit.at;
    if (options.giveUpAfterExitMs !== undefined) {
      if (exitedFor > options.giveUpAfterExitMs) return undefined;
    } else if (exitedFor > 1000) {
      child = undefined;
    }
    if (!child) {
      heldBy = await anotherCommandHolding(storeDir);
      if (heldBy && options.giveUpAfterExitMs !== undefined) return undefined;
      if (!heldBy) {
        options.log(`cairn: starting the store's owner (cairn serve) for ${storeDir}`);
        child = startChild(storeDir);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The process holding the store, when it runs a command other than `cairn
 * serve` (past cairn's own options): no owner can open the store until it is
 * done. A holder that wrote no command line may be an owner still opening it.
 */
async function anotherCommandHolding(storeDir: string): Promise<LockHolder | undefined> {
  const holder = await currentHolder(storeDir);
  const args = holder?.args ?? [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--store") i++;
    else if (!args[i]!.startsWith("-")) return args[i] === "serve" ? undefined : holder;
  }
  return undefined;
}

/** An owner started here; `exit` is set once it has exited. */
interface StartedChild {
  exit?: { code: number; at: number };
}

function startChild(storeDir: string): StartedChild {
  const started: StartedChild = {};
  spawnOwner(storeDir).then(({ code }) => (started.exit = { code, at: Date.now() }));
  return started;
}

/** Starts `cairn serve` for the store, detached so it outlives this process; resolves on its exit. */
function spawnOwner(storeDir: string): Promise<Deno.CommandStatus> {
  const { exec, args } = selfCommand([
    "--store",
    storeDir,
    "serve",
    "--idle-timeout",
    `${OWNER_IDLE_SECONDS}`,
    "--log",
    ownerFiles(storeDir).log,
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

async function logTail(storeDir: string): Promise<string> {
  try {
    const text = await Deno.readTextFile(ownerFiles(storeDir).log);
    const lines = text.trim().split("\n").slice(-5).join("\n");
    return lines ? `; its last lines:\n${lines}` : "";
  } catch {
    return "";
  }
}
