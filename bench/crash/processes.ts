/**
 * Process groups: every process starts in its own session, so that it and all its children
 * can be SIGKILLed at once and nothing outlives the benchmark; and the snapshot of the code run.
 * @module
 */
import { join } from "node:path";

/** The repository checkout this benchmark belongs to. */
export const ROOT = new URL("../../", import.meta.url).pathname;
/** The cairn entry point the processes run (a snapshot's, once {@linkcode snapshotCode} ran). */
export let MAIN = join(ROOT, "main.ts");
/**
 * Every cairn started here opens the store in its own process (the writer
 * killed is the command), and waits for a killed process's lock instead of failing.
 */
export const ENV = { CAIRN_LOCK_WAIT_SECONDS: "30", CAIRN_NO_OWNER: "1" };

/** The longest any single cairn command may take before it is killed and reported. */
export const COMMAND_TIMEOUT_MS = 10 * 60_000;

const live = new Set<Group>();
/** Set when the benchmark is interrupted: nothing new is started. */
let stopping = false;

/** Stops starting processes: the benchmark is being interrupted. */
export function stopStarting(): void {
  stopping = true;
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `promise`, or "timeout" after `ms` (the timer is cleared either way). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The processes (zombies aside) whose process group is `pgid`. */
function groupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    let stat: string;
    try {
      stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] !== "Z" && Number(fields[2]) === pgid) pids.push(Number(entry.name));
  }
  return pids;
}

/** A process started as the leader of a new session (so of a new process group). */
export class Group {
  readonly pgid: number;
  readonly started = performance.now();
  out = "";
  err = "";
  exited = false;
  code = -1;
  /** How long the leader ran, once it exited. */
  ranMs = 0;
  readonly status: Promise<Deno.CommandStatus>;
  readonly #reading: Promise<unknown>;

  constructor(command: string, args: string[], env: Record<string, string> = {}) {
    if (stopping) throw new Error("interrupted");
    const child = new Deno.Command(command, {
      args,
      env: { ...ENV, ...env },
      detached: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.pgid = child.pid;
    this.status = child.status.then((status) => {
      this.exited = true;
      this.code = status.code;
      this.ranMs = performance.now() - this.started;
      return status;
    });
    this.#reading = Promise.all([
      drain(child.stdout, (text) => (this.out += text)),
      drain(child.stderr, (text) => (this.err += text)),
    ]);
    live.add(this);
  }

  /** SIGKILLs the whole group; true when its leader was still running. */
  async kill(): Promise<boolean> {
    const running = !this.exited;
    try {
      Deno.kill(-this.pgid, "SIGKILL");
    } catch { /* already gone */ }
    await this.status;
    for (let i = 0; i < 200 && groupMembers(this.pgid).length > 0; i++) await sleep(25);
    const left = groupMembers(this.pgid);
    if (left.length > 0) throw new Error(`processes ${left.join(", ")} survived SIGKILL`);
    await within(this.#reading, 5_000);
    live.delete(this);
    return running;
  }

  /** Waits for the leader to exit (killing the group after `timeoutMs`). */
  async wait(timeoutMs = COMMAND_TIMEOUT_MS): Promise<{ code: number; timedOut: boolean }> {
    const done = await within(this.status, timeoutMs);
    await this.kill(); // whatever the leader left behind
    return { code: this.code, timedOut: done === "timeout" };
  }
}

async function drain(stream: ReadableStream<Uint8Array>, add: (text: string) => void) {
  for await (const text of stream.pipeThrough(new TextDecoderStream())) add(text);
}

/** SIGKILLs every process group still running. */
export async function killEverything(): Promise<void> {
  for (const group of [...live]) await group.kill().catch(() => {});
}

/** Runs a command to its end; its standard output, or an error with its standard error. */
export async function run(command: string, args: string[], cwd = ROOT): Promise<string> {
  const output = await new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  if (!output.success) {
    throw new Error(
      `${command} ${args.join(" ")} failed: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
  return new TextDecoder().decode(output.stdout);
}

/**
 * Copies the code of the HEAD commit into `<tmp>/cairn` and points {@linkcode MAIN} at it;
 * returns the commit. Others may be editing the checkout while the benchmark runs.
 */
export async function snapshotCode(tmp: string): Promise<string> {
  const commit = (await run("git", ["rev-parse", "HEAD"])).trim();
  const dir = join(tmp, "cairn");
  await Deno.mkdir(dir);
  const paths = ["main.ts", "deno.json", "deno.lock", "src", "events", "projections"];
  await run("bash", [
    "-c",
    `git archive --format=tar ${commit} ${paths.join(" ")} | tar -x -C ${sq(dir)}`,
  ]);
  await Deno.symlink(join(ROOT, "models"), join(dir, "models"));
  await run("cp", ["-a", join(ROOT, "node_modules"), join(dir, "node_modules")]);
  MAIN = join(dir, "main.ts");
  return commit;
}

/** Single-quoted for bash. */
export function sq(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
