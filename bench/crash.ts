/**
 * `deno task bench crash`: SIGKILLs real `cairn` processes in the middle of every command that
 * writes, then checks that each write a process had acknowledged before it died is still there
 * and that the store still opens. Each kill is followed by `cairn status --json` (the store must
 * open), a check of everything acknowledged so far, `cairn verify` (and, when it complains, an
 * open and a second `verify`), and, for commands a user would simply run again (import, index,
 * ingest, compact, replay, delete-project), that run, which must finish with the right result.
 *
 * Workloads: loops of `remember`, `revise`, `forget`, `forget --purge`, `graph` subcommands and
 * `ingest claude` (a bash loop of sequential commands, the whole process group killed after a
 * random delay; every line printed before the kill is acknowledged); single `import`, `index`,
 * `compact`, `replay` and `delete-project` runs killed at a random moment of their measured
 * duration; and a `cairn serve` owner killed while `remember` calls reach it over MCP (HTTP) and
 * through the CLI's relay. The plan (delays, texts, operations) comes from a seeded RNG:
 * CAIRN_BENCH_SEED (printed), CAIRN_BENCH_CRASH_KILLS (default 120) kills of a running process.
 * Stores that fail a check are kept (their paths are printed and reported); the rest is removed.
 *
 * The code under test is a snapshot of the repository's HEAD commit taken when the run starts
 * (`git archive` of main.ts, deno.json, deno.lock, src/, events/, projections/, with a copy of
 * node_modules and a link to models/), so that edits made to the checkout during the run do not
 * change what is measured; CAIRN_BENCH_CRASH_CODE=worktree runs the checkout itself instead.
 * @module
 */
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { newStore } from "./cli.ts";
import { runInfo, writeSection } from "./report.ts";

const ROOT = new URL("../", import.meta.url).pathname;
/** The cairn entry point the processes run (a snapshot's, once {@linkcode snapshotCode} ran). */
let MAIN = join(ROOT, "main.ts");
/** Every cairn started here waits for a killed process's lock instead of failing at once. */
const ENV = { CAIRN_LOCK_WAIT_SECONDS: "30" };
const DEFAULT_SEED = 20261125;
const DEFAULT_KILLS = 120;
/** The longest any single cairn command may take before it is killed and reported. */
const COMMAND_TIMEOUT_MS = 10 * 60_000;
const PAGE = 50;

// ---------------------------------------------------------------------------------------------
// Seeded randomness

/** mulberry32: a small, fast, seeded PRNG in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  readonly #next: () => number;
  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }
  /** An integer in [low, high]. */
  int(low: number, high: number): number {
    return low + Math.floor(this.#next() * (high - low + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }
  chance(p: number): boolean {
    return this.#next() < p;
  }
  /** A word of lowercase letters no index would split or stem into something common. */
  word(length = 9): string {
    let word = "";
    for (let i = 0; i < length; i++) word += "bcdfghjklmnpqrstvwxz"[this.int(0, 19)];
    return word;
  }
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => this.int(0, 15).toString(16)).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${
      hex.slice(20)
    }`;
  }
}

// ---------------------------------------------------------------------------------------------
// Process groups: every process is started in its own session so that it and all its children
// can be SIGKILLed at once, and nothing outlives the benchmark.

const live = new Set<Group>();
/** Set when the benchmark is interrupted: nothing new is started. */
let stopping = false;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `promise`, or "timeout" after `ms` (the timer is cleared either way). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
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
class Group {
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

async function killEverything(): Promise<void> {
  for (const group of [...live]) await group.kill().catch(() => {});
}

/** Runs a command to its end; its standard output, or an error with its standard error. */
async function run(command: string, args: string[], cwd = ROOT): Promise<string> {
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
async function snapshotCode(tmp: string): Promise<string> {
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

// ---------------------------------------------------------------------------------------------
// Running cairn

interface Ran {
  code: number;
  out: string;
  err: string;
  ms: number;
  timedOut: boolean;
}

function cairnArgs(store: string, args: string[]): string[] {
  return ["run", "--allow-all", "--quiet", MAIN, "--store", store, ...args];
}

/** Starts `cairn --store STORE ARGS` in its own process group. */
function startCairn(store: string, args: string[]): Group {
  return new Group(Deno.execPath(), cairnArgs(store, args));
}

/** Runs `cairn --store STORE ARGS` to its end. */
async function cairn(store: string, args: string[]): Promise<Ran> {
  const group = startCairn(store, args);
  const { code, timedOut } = await group.wait();
  return { code, out: group.out, err: group.err, ms: performance.now() - group.started, timedOut };
}

/** A check could not be made: a command that reads the store failed. */
class CheckFailed extends Error {}

/** Runs a command whose failure means the check cannot be made. */
async function cairnOk(store: string, args: string[]): Promise<Ran> {
  const ran = await cairn(store, args);
  if (ran.code !== 0) {
    throw new CheckFailed(
      `\`cairn ${args.join(" ")}\` exited ${ran.timedOut ? "(timed out)" : ran.code}: ${
        brief(ran.err || ran.out)
      }`,
    );
  }
  return ran;
}

function brief(text: string, max = 400): string {
  const flat = text.trim().replace(/\s*\n\s*/g, " | ");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** Single-quoted for bash. */
function sq(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

interface Memory {
  id: string;
  project: string | null;
  content: string;
  forgotten_at?: string;
  external_id?: string;
}

/** Every memory (forgotten ones too), through `cairn list --json` a page at a time. */
async function listAll(store: string, project?: string): Promise<Memory[]> {
  const all: Memory[] = [];
  for (let offset = 0;; offset += PAGE) {
    const ran = await cairnOk(store, [
      "list",
      "--json",
      "--forgotten",
      "--limit",
      String(PAGE),
      "--offset",
      String(offset),
      ...(project ? ["--project", project] : []),
    ]);
    const page = JSON.parse(ran.out) as Memory[];
    all.push(...page);
    if (page.length < PAGE) return all;
  }
}

interface Hit {
  type: string;
  id: string;
  project?: string;
  name?: string;
  file_path?: string;
}

interface Query {
  id: string;
  query: string;
  include: "code" | "sessions" | "memories";
}

/** Words-only searches, all in one `cairn recall --batch` process. */
async function searchBatch(
  store: string,
  dir: string,
  queries: Query[],
): Promise<Map<string, Hit[]>> {
  const answers = new Map<string, Hit[]>();
  if (queries.length === 0) return answers;
  const file = join(dir, "queries.jsonl");
  await Deno.writeTextFile(
    file,
    queries.map((q) => JSON.stringify({ ...q, include: [q.include], mode: "lexical" })).join("\n") +
      "\n",
  );
  const ran = await cairnOk(store, [
    "recall",
    "--batch",
    file,
    "--limit",
    "5",
    "--format",
    "jsonl",
  ]);
  for (const line of ran.out.split("\n")) {
    if (!line.trim()) continue;
    const answer = JSON.parse(line) as { id: string; results: Hit[] };
    answers.set(answer.id, answer.results);
  }
  return answers;
}

/** The knowledge graph as a set of facts, through `cairn graph read --json`. */
async function graphFacts(store: string): Promise<Set<string>> {
  const facts = new Set<string>();
  for (let cursor = 0;;) {
    const ran = await cairnOk(store, [
      "graph",
      "read",
      "--json",
      "--limit",
      "100",
      "--cursor",
      String(cursor),
    ]);
    const page = JSON.parse(ran.out) as {
      entities: Array<{ name: string; entityType: string; observations: string[] }>;
      relations: Array<{ from: string; to: string; relationType: string }>;
      more: number;
    };
    for (const entity of page.entities) {
      facts.add(entityFact(entity.name, entity.entityType));
      for (const text of entity.observations) facts.add(observationFact(entity.name, text));
    }
    for (const r of page.relations) facts.add(relationFact(r.from, r.relationType, r.to));
    if (page.more === 0 || page.entities.length === 0) return facts;
    cursor += page.entities.length;
  }
}

/** `cairn verify`: passed, and the problem lines it printed. */
async function verify(store: string): Promise<{ ok: boolean; problems: string[] }> {
  const ran = await cairn(store, ["verify"]);
  const problems = ran.out.split("\n").filter((line) => line.startsWith("problem:"));
  if (ran.code !== 0 && problems.length === 0) {
    problems.push(`exit ${ran.timedOut ? "(timed out)" : ran.code}: ${brief(ran.err || ran.out)}`);
  }
  return { ok: ran.code === 0, problems };
}

/** The bytes of every file under `dir`, with its path. */
async function* filesUnder(dir: string): AsyncGenerator<[string, Uint8Array]> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* filesUnder(path);
    else if (entry.isFile) yield [path, await Deno.readFile(path)];
  }
}

/** The log files (under `<store>/log`) that still hold any of `texts`, text by text. */
async function textsInLog(store: string, texts: string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (texts.length === 0) return found;
  const decoder = new TextDecoder("utf-8", { fatal: false });
  for await (const [path, bytes] of filesUnder(join(store, "log"))) {
    const content = decoder.decode(bytes);
    for (const text of texts) {
      if (content.includes(text)) found.set(text, [...(found.get(text) ?? []), path]);
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// What one workload measured

interface Tally {
  name: string;
  /** What is run and killed. */
  what: string;
  rounds: number;
  /** SIGKILLs that hit a running process. */
  kills: number;
  /** Rounds whose command had already finished when its kill came. */
  finishedFirst: number;
  /** Writes acknowledged by the killed processes (ids printed, ACK lines, finished runs). */
  acked: number;
  /** Acknowledged items checked after the kills (everything acknowledged so far, each time). */
  checked: number;
  lost: number;
  duplicated: number;
  unopenable: number;
  checkErrors: number;
  verifyOk: number;
  verifyFailed: number;
  verifyReopenOk: number;
  reruns: number;
  rerunOk: number;
  /** Commands that exited non-zero inside a loop before its kill. */
  commandErrors: number;
  /** Opens after a kill that said a torn last record was cut off. */
  torn: number;
  /** First opens after a kill that printed any warning (a torn tail, a projection rebuilt). */
  warned: number;
  /** The warnings, shaped, with how often and one exact example. */
  warnings: Map<string, { n: number; example: string }>;
  failures: string[];
  notes: string[];
  verifyProblems: Map<string, number>;
  commandErrorSamples: Map<string, number>;
  seconds: number;
}

function newTally(name: string, what: string): Tally {
  return {
    name,
    what,
    rounds: 0,
    kills: 0,
    finishedFirst: 0,
    acked: 0,
    checked: 0,
    lost: 0,
    duplicated: 0,
    unopenable: 0,
    checkErrors: 0,
    verifyOk: 0,
    verifyFailed: 0,
    verifyReopenOk: 0,
    reruns: 0,
    rerunOk: 0,
    commandErrors: 0,
    torn: 0,
    warned: 0,
    warnings: new Map(),
    failures: [],
    notes: [],
    verifyProblems: new Map(),
    commandErrorSamples: new Map(),
    seconds: 0,
  };
}

/** What a check after a kill found. */
interface Check {
  checked: number;
  lost: string[];
  duplicated?: string[];
}

interface Context {
  rng: Rng;
  /** The benchmark's temporary folder (removed at the end). */
  tmp: string;
  /** Where stores that failed a check are kept (made on first use, not removed). */
  keptDir?: string;
  kept: string[];
}

/** Copies (or moves) a store out of the temporary folder, for inspection; returns its path. */
async function keepStore(
  ctx: Context,
  store: string,
  label: string,
  move: boolean,
): Promise<string> {
  ctx.keptDir ??= await Deno.makeTempDir({ prefix: "cairn-bench-crash-kept-" });
  const dest = join(ctx.keptDir, label.replace(/[^a-z0-9]+/gi, "-"));
  if (move) await Deno.rename(store, dest);
  else {
    const copy = await new Deno.Command("cp", { args: ["-a", store, dest] }).output();
    if (!copy.success) return `${store} (copy failed)`;
  }
  ctx.kept.push(dest);
  console.log(`[crash]   kept the store for inspection: ${dest}`);
  return dest;
}

const lines = (text: string) => {
  const all = text.split("\n");
  if (!text.endsWith("\n")) all.pop(); // a line cut by the kill is not acknowledged
  return all;
};

/** Normalised for counting: ids, numbers and paths vary from kill to kill. */
function shape(line: string): string {
  return line.replace(/mem_[a-z0-9]+/g, "mem_…").replace(/\/tmp\/\S+/g, "/tmp/…")
    .replace(/\d+/g, "N").slice(0, 300);
}

/** The last lines of a process's standard error, shaped for counting. */
function lastLines(err: string): string {
  const own = err.trim().split("\n").filter((line) => !isOpenWarning(line));
  return shape(own.slice(-2).join(" | ").replace(/`cairn [^`]*`/g, "`cairn …`"));
}

/** A line the opening of a store prints about what a crash left (and what it did about it). */
function isOpenWarning(line: string): boolean {
  return /^cairn: .*(torn|projection|rebuil|purge|moved|cut )/.test(line) &&
    !/stopped while answering/.test(line);
}

/**
 * Counts the warnings the first open after a kill printed; true when there was any.
 * `where` says which process printed them; `all`: every line it printed is one.
 */
function noteWarnings(t: Tally, where: string, err: string, all = false): boolean {
  const found = err.split("\n").filter((line) => all ? line.trim() !== "" : isOpenWarning(line));
  for (const line of found) {
    const key = shape(line);
    const seen = t.warnings.get(key);
    if (seen) seen.n++;
    else t.warnings.set(key, { n: 1, example: `${where}: ${line.trim()}` });
  }
  return found.length > 0;
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/**
 * What follows every kill: the store must open (`status --json`), every acknowledged write must
 * be there (`check`), `verify` is run (and after a failure, an open and `verify` again), and
 * `rerun` (the same command again, where a user would run it again) must finish correctly.
 * False when the store would not open (it is then moved aside, for inspection).
 */
async function afterKill(
  t: Tally,
  ctx: Context,
  store: string,
  label: string,
  check: () => Promise<Check>,
  rerun?: () => Promise<string[]>,
): Promise<boolean> {
  let keep = false;
  const status = await cairn(store, ["status", "--json"]);
  if (/torn/.test(status.err)) t.torn++;
  if (noteWarnings(t, `${label}, \`cairn status --json\` after the kill`, status.err, true)) {
    t.warned++;
  }
  if (status.code !== 0) {
    t.unopenable++;
    const kept = await keepStore(ctx, store, label, true);
    t.failures.push(
      `${label}: store left unopenable: \`cairn --store ${kept} status --json\` exited ${
        status.timedOut ? "(timed out)" : status.code
      }: ${brief(status.err || status.out)}`,
    );
    console.log(`[crash]   STORE UNOPENABLE: ${brief(status.err)}`);
    return false;
  }
  try {
    const report = JSON.parse(status.out) as { owner?: number };
    if (report.owner) {
      t.failures.push(`${label}: after the kill, pid ${report.owner} still held the store`);
    }
  } catch {
    t.failures.push(`${label}: \`status --json\` printed no JSON: ${brief(status.out)}`);
  }
  let found: Check | undefined;
  try {
    found = await check();
  } catch (error) {
    t.checkErrors++;
    keep = true;
    t.failures.push(`${label}: the check could not be made: ${(error as Error).message}`);
  }
  if (found) {
    t.checked += found.checked;
    t.lost += found.lost.length;
    const duplicated = found.duplicated ?? [];
    t.duplicated += duplicated.length;
    for (const what of found.lost.slice(0, 5)) {
      t.failures.push(`${label}: acknowledged write lost: ${what}`);
    }
    if (found.lost.length > 5) t.failures.push(`${label}: … ${found.lost.length - 5} more lost`);
    for (const what of duplicated.slice(0, 5)) t.failures.push(`${label}: duplicated: ${what}`);
    if (found.lost.length + duplicated.length > 0) keep = true;
  }
  const first = await verify(store);
  if (first.ok) t.verifyOk++;
  else {
    t.verifyFailed++;
    for (const problem of first.problems) bump(t.verifyProblems, shape(problem));
    await cairn(store, ["status", "--json"]); // an open finishes what a crash left (a purge, ...)
    const again = await verify(store);
    if (again.ok) t.verifyReopenOk++;
    else {
      keep = true;
      t.failures.push(
        `${label}: \`cairn verify\` still fails after reopening: ${again.problems.join("; ")}`,
      );
    }
  }
  if (rerun) {
    t.reruns++;
    let problems: string[];
    try {
      problems = await rerun();
    } catch (error) {
      problems = [`the check after the re-run could not be made: ${(error as Error).message}`];
    }
    if (problems.length === 0) t.rerunOk++;
    else {
      keep = true;
      for (const problem of problems.slice(0, 5)) t.failures.push(`${label}: re-run: ${problem}`);
    }
  }
  if (keep) {
    const kept = await keepStore(ctx, store, label, false);
    t.notes.push(`${label}: store kept at ${kept}`);
  }
  const state = found
    ? `checked ${found.checked}, lost ${found.lost.length}`
    : "check could not be made";
  console.log(
    `[crash]   ${state}; verify ${first.ok ? "ok" : `failed (${first.problems.length})`}` +
      (keep ? "; FAILURE, see the report" : ""),
  );
  return true;
}

/** Runs `steps` as a bash loop on `store` and SIGKILLs its process group after `delayMs`. */
async function killLoop(
  ctx: Context,
  store: string,
  steps: string[],
  delayMs: number,
): Promise<{ out: string; err: string; running: boolean }> {
  const script = join(ctx.tmp, "loop.sh");
  await Deno.writeTextFile(
    script,
    'set -u\nc() { "$DENO" run --allow-all --quiet "$MAIN" --store "$S" "$@"; }\n' +
      steps.join("\n") + "\n",
  );
  const group = new Group("bash", [script], { DENO: Deno.execPath(), MAIN, S: store });
  await sleep(delayMs);
  const running = await group.kill();
  return { out: group.out, err: group.err, running };
}

/** A loop step whose success bash acknowledges with `ACK k`; the loop stops at a failure. */
function ackStep(k: number, args: string[]): string {
  return `c ${args.map(sq).join(" ")} >/dev/null && echo "ACK ${k}" || { echo "FAIL ${k} $?"; ` +
    "exit 3; }";
}

/** How many steps the loop acknowledged; its failures are counted on the tally. */
function loopAcks(t: Tally, run: { out: string; err: string }): number {
  let acks = 0;
  for (const line of lines(run.out)) {
    if (/^ACK \d+$/.test(line)) acks++;
    if (/^FAIL \d+ \d+$/.test(line)) {
      t.commandErrors++;
      bump(
        t.commandErrorSamples,
        `${line.replace(/\d+ (\d+)$/, "k, exit $1")}: ${lastLines(run.err)}`,
      );
    }
  }
  return acks;
}

/** The kill delay of a loop: 50 ms to 3 s after it starts. */
const loopDelay = (ctx: Context) => ctx.rng.int(50, 3000);

/** The kill delay of a single command that takes about `ms` when left alone. */
const commandDelay = (ctx: Context, ms: number) =>
  ctx.rng.int(50, Math.max(300, Math.round(0.95 * ms)));

function logRound(t: Tally, round: number, quota: number, detail: string): void {
  console.log(`[crash] ${t.name} round ${round} (kill ${t.kills}/${quota}): ${detail}`);
}

// ---------------------------------------------------------------------------------------------
// Memories

/** Compares the memories a store lists with what was acknowledged. */
async function checkMemories(
  store: string,
  expected: Map<string, string>,
  options: {
    project?: string;
    /** Acknowledged as forgotten (must be listed as forgotten). */
    forgotten?: Set<string>;
    /** Acknowledged as purged (must not be listed, nor be in the log). */
    purged?: Map<string, string>;
    /** The one write that was running at the kill: either outcome is right. */
    inflight?: { id: string; content?: string; forget?: boolean; purge?: boolean };
  } = {},
): Promise<Check & { memories: Map<string, Memory> }> {
  const memories = new Map<string, Memory>();
  const listed = await listAll(store, options.project);
  const lost: string[] = [];
  const duplicated: string[] = [];
  for (const memory of listed) {
    if (memories.has(memory.id)) duplicated.push(`${memory.id} listed twice`);
    memories.set(memory.id, memory);
  }
  const inflight = options.inflight;
  for (const [id, content] of expected) {
    const memory = memories.get(id);
    const running = inflight?.id === id;
    if (!memory) {
      if (!(running && inflight.purge)) lost.push(`memory ${id} is gone`);
      continue;
    }
    if (memory.content !== content && !(running && memory.content === inflight.content)) {
      lost.push(
        `memory ${id} reads "${brief(memory.content, 80)}", not the acknowledged "${
          brief(content, 80)
        }"`,
      );
    }
    const forgotten = memory.forgotten_at !== undefined;
    const shouldBe = options.forgotten?.has(id) ?? false;
    if (forgotten !== shouldBe && !(running && (inflight.forget || inflight.purge))) {
      lost.push(
        shouldBe ? `memory ${id} was forgotten (acknowledged) but is not` : `memory ${id} is ` +
          "forgotten, though nothing acknowledged forgetting it",
      );
    }
  }
  const purged = options.purged ?? new Map<string, string>();
  for (const id of purged.keys()) {
    if (memories.has(id)) lost.push(`memory ${id} was purged (acknowledged) but is still listed`);
  }
  const inLog = await textsInLog(store, [...purged.values()]);
  for (const [id, content] of purged) {
    const files = inLog.get(content);
    if (files) lost.push(`the purged content of ${id} is still in ${files.join(", ")}`);
  }
  return {
    checked: expected.size + purged.size,
    lost,
    duplicated,
    memories,
  };
}

function memoryText(ctx: Context, n: number): string {
  const { rng } = ctx;
  return `Crash note ${n}: the ${rng.word()} service keeps ${rng.word()} records for ${
    rng.int(2, 900)
  } days`;
}

/** The memories `remember --json` lines (CLI) acknowledged: id and the content it stored. */
function remembered(out: string): Array<{ id: string; content: string }> {
  const made: Array<{ id: string; content: string }> = [];
  for (const line of lines(out)) {
    if (!line.startsWith("{")) continue;
    try {
      const memory = (JSON.parse(line) as { memory?: { id?: unknown; content?: unknown } }).memory;
      if (typeof memory?.id === "string" && typeof memory.content === "string") {
        made.push({ id: memory.id, content: memory.content });
      }
    } catch { /* not a remember answer */ }
  }
  return made;
}

async function benchRemember(ctx: Context, quota: number): Promise<Tally> {
  const t = newTally(
    "remember",
    "a bash loop of sequential `remember --json`; acked = every id printed",
  );
  let store = await newStore(join(ctx.tmp, "remember", "store"));
  let expected = new Map<string, string>();
  let n = 0;
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const texts = Array.from({ length: 30 }, () => memoryText(ctx, ++n));
    // A failure does not stop this loop: every id printed counts.
    const steps = texts.map((text, k) => `c remember ${sq(text)} --json || echo "FAIL ${k} $?"`);
    const delay = loopDelay(ctx);
    const run = await killLoop(ctx, store, steps, delay);
    if (run.running) t.kills++;
    else t.finishedFirst++;
    loopAcks(t, run);
    const ids = remembered(run.out);
    for (const { id, content } of ids) {
      if (!texts.includes(content)) {
        t.failures.push(`remember round ${round}: ${id} was stored as "${content}"`);
      }
      expected.set(id, content);
    }
    t.acked += ids.length;
    logRound(t, round, quota, `killed after ${delay} ms, ${ids.length} ids acknowledged`);
    const opened = await afterKill(
      t,
      ctx,
      store,
      `remember round ${round}`,
      () => checkMemories(store, expected),
    );
    if (!opened) {
      store = await newStore(join(ctx.tmp, "remember", `store-${round}`));
      expected = new Map();
    }
  }
  return t;
}

/** JSONL records for `cairn import`, with ids. */
function importRecords(
  ctx: Context,
  prefix: string,
  count: number,
  project: string,
): Array<{ id: string; content: string; project: string }> {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}-${i}`,
    content: `Imported record ${prefix} ${i}: the ${ctx.rng.word()} queue drains ` +
      `${ctx.rng.word()} jobs every ${ctx.rng.int(2, 900)} seconds`,
    project,
  }));
}

async function writeJsonl(path: string, records: unknown[]): Promise<void> {
  await Deno.writeTextFile(path, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
}

async function benchImport(ctx: Context, quota: number): Promise<Tally> {
  const t = newTally(
    "import",
    "`import FILE.jsonl` (100 records with ids) killed, then the same import again; acked = " +
      "every record of a file whose import printed its summary",
  );
  const dir = join(ctx.tmp, "import");
  let store = await newStore(join(dir, "store"));
  const project = "imp";
  let acked = new Map<string, string>(); // record id -> content
  const seedFile = join(dir, "seed.jsonl");
  const seed = importRecords(ctx, "seed", 100, project);
  await writeJsonl(seedFile, seed);
  const calibration = await cairn(store, ["import", seedFile]);
  if (calibration.code !== 0) {
    t.failures.push(`the first import failed: ${brief(calibration.err)}`);
    return t;
  }
  for (const r of seed) acked.set(r.id, r.content);
  let estimate = calibration.ms;
  const checkImported = async (mustHave: Map<string, string>): Promise<Check> => {
    const listed = await listAll(store, project);
    const times = new Map<string, number>();
    for (const m of listed) {
      if (m.external_id !== undefined) {
        times.set(m.external_id, (times.get(m.external_id) ?? 0) + 1);
      }
    }
    const lost: string[] = [];
    const duplicated: string[] = [];
    for (const [id, content] of mustHave) {
      const memory = listed.find((m) => m.external_id === id);
      if (!memory) lost.push(`imported record ${id} is gone`);
      else if (memory.content !== content) lost.push(`imported record ${id} has other content`);
    }
    for (const [id, n] of times) if (n > 1) duplicated.push(`record ${id} is there ${n} times`);
    return { checked: mustHave.size, lost, duplicated };
  };
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const file = join(dir, `round-${round}.jsonl`);
    const records = importRecords(ctx, `r${round}`, 100, project);
    await writeJsonl(file, records);
    const delay = commandDelay(ctx, estimate);
    const group = startCairn(store, ["import", file]);
    await sleep(delay);
    const running = await group.kill();
    if (running) t.kills++;
    else {
      t.finishedFirst++;
      estimate = group.ranMs; // the next kill within what such a run really takes
    }
    const finished = !running && group.code === 0 && /^imported \d+/m.test(group.out);
    if (!running && !finished) {
      t.commandErrors++;
      bump(t.commandErrorSamples, `import exit ${group.code}: ${lastLines(group.err)}`);
    }
    if (finished) {
      for (const r of records) acked.set(r.id, r.content);
      t.acked += records.length;
    }
    logRound(t, round, quota, `killed after ${delay} ms${finished ? " (had finished)" : ""}`);
    const opened = await afterKill(
      t,
      ctx,
      store,
      `import round ${round}`,
      () => checkImported(acked),
      async () => {
        const again = await cairn(store, ["import", file]);
        if (again.code !== 0) {
          return [`\`cairn import ${file}\` exited ${again.code}: ${brief(again.err)}`];
        }
        for (const r of records) acked.set(r.id, r.content);
        const after = await checkImported(acked);
        return [...after.lost, ...(after.duplicated ?? [])];
      },
    );
    if (!opened) {
      store = await newStore(join(dir, `store-${round}`));
      acked = new Map();
    }
  }
  return t;
}

/** A few memories made with `remember --json`, for the workloads that change memories. */
async function rememberSome(
  ctx: Context,
  store: string,
  count: number,
  project: string,
): Promise<Map<string, string>> {
  const made = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const text = memoryText(ctx, i);
    const ran = await cairnOk(store, ["remember", text, "--project", project, "--json"]);
    made.set((JSON.parse(ran.out) as { memory: { id: string } }).memory.id, text);
  }
  return made;
}

/** Imports `count` records and returns their memories' ids and contents. */
async function importSome(
  ctx: Context,
  store: string,
  count: number,
  project: string,
): Promise<Map<string, string>> {
  const file = join(ctx.tmp, `${project}-seed.jsonl`);
  await writeJsonl(file, importRecords(ctx, project, count, project));
  await cairnOk(store, ["import", file]);
  return new Map((await listAll(store, project)).map((m) => [m.id, m.content]));
}

async function benchRevise(ctx: Context, quota: number): Promise<Tally> {
  const t = newTally(
    "revise",
    "a bash loop of `revise ID TEXT` over 4 memories; acked = each revision that exited 0",
  );
  const store = await newStore(join(ctx.tmp, "revise", "store"));
  const current = await rememberSome(ctx, store, 4, "rev");
  const ids = [...current.keys()];
  let n = 0;
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const plan = Array.from({ length: 30 }, () => ({
      id: ctx.rng.pick(ids),
      content: `Revision ${++n}: the ${ctx.rng.word()} cache now holds ${
        ctx.rng.int(2, 900)
      } ${ctx.rng.word()} entries`,
    }));
    const delay = loopDelay(ctx);
    const run = await killLoop(
      ctx,
      store,
      plan.map((p, k) => ackStep(k, ["revise", p.id, p.content])),
      delay,
    );
    if (run.running) t.kills++;
    else t.finishedFirst++;
    const acks = loopAcks(t, run);
    t.acked += acks;
    for (const p of plan.slice(0, acks)) current.set(p.id, p.content);
    const inflight = plan[acks];
    logRound(t, round, quota, `killed after ${delay} ms, ${acks} revisions acknowledged`);
    const opened = await afterKill(t, ctx, store, `revise round ${round}`, async () => {
      const found = await checkMemories(store, current, {
        project: "rev",
        ...(inflight ? { inflight } : {}),
      });
      // The revision that was running may have landed: it is then the state to build on.
      if (inflight && found.memories.get(inflight.id)?.content === inflight.content) {
        current.set(inflight.id, inflight.content);
      }
      return found;
    });
    if (!opened) break; // its memories are gone with it; the report says so
  }
  return t;
}

async function benchForget(ctx: Context, quota: number, purge: boolean): Promise<Tally> {
  const name = purge ? "forget --purge" : "forget";
  const t = newTally(
    name,
    `a bash loop of \`forget ID${purge ? " --purge" : ""}\` over imported memories; acked = ` +
      `each ${purge ? "purge" : "forget"} that exited 0 (every other memory must stay as it was)`,
  );
  const project = purge ? "pg" : "fg";
  const store = await newStore(join(ctx.tmp, project, "store"));
  const alive = await importSome(ctx, store, purge ? 80 : 150, project);
  const forgotten = new Set<string>();
  const purged = new Map<string, string>();
  const expected = new Map(alive); // what list must show (forgotten ones included)
  const queue = [...alive.keys()];
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    if (queue.length === 0) {
      t.notes.push(`${name}: ran out of memories to forget after ${round - 1} rounds`);
      break;
    }
    t.rounds++;
    const plan = queue.slice(0, 30);
    const delay = loopDelay(ctx);
    const run = await killLoop(
      ctx,
      store,
      plan.map((id, k) => ackStep(k, ["forget", id, ...(purge ? ["--purge"] : [])])),
      delay,
    );
    if (run.running) t.kills++;
    else t.finishedFirst++;
    const acks = loopAcks(t, run);
    t.acked += acks;
    for (const id of plan.slice(0, acks)) {
      queue.shift();
      if (purge) {
        purged.set(id, expected.get(id)!);
        expected.delete(id);
      } else forgotten.add(id);
    }
    const running = plan[acks];
    const inflight = running
      ? { id: running, ...(purge ? { purge: true } : { forget: true }) }
      : undefined;
    logRound(t, round, quota, `killed after ${delay} ms, ${acks} acknowledged`);
    const opened = await afterKill(t, ctx, store, `${name} round ${round}`, async () => {
      const found = await checkMemories(store, expected, {
        project,
        forgotten,
        purged,
        ...(inflight ? { inflight } : {}),
      });
      if (running) {
        // Whatever the running command left is the state to build on.
        const memory = found.memories.get(running);
        if (!memory && purge) {
          purged.set(running, expected.get(running)!);
          expected.delete(running);
          queue.shift();
        } else if (memory?.forgotten_at !== undefined) {
          if (purge) {
            // A purge cut between its two steps: the next open finishes it (status did).
            t.notes.push(`${name}: ${running} was left forgotten but not yet purged`);
          }
          forgotten.add(running);
          queue.shift();
        }
      }
      return found;
    });
    if (!opened) break;
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// The knowledge graph

interface GraphState {
  entities: Map<string, { type: string; observations: Set<string> }>;
  relations: Set<string>; // "from\0type\0to"
}

type GraphOp =
  | { op: "add"; name: string; type: string; observation: string }
  | { op: "observe"; name: string; text: string }
  | { op: "relate"; from: string; type: string; to: string }
  | { op: "delete-observation"; name: string; text: string }
  | { op: "unrelate"; from: string; type: string; to: string }
  | { op: "delete-entity"; name: string };

const entityFact = (name: string, type: string) => `entity ${name} (${type})`;
const observationFact = (name: string, text: string) => `observation of ${name}: ${text}`;
const relationFact = (from: string, type: string, to: string) => `relation ${from} ${type} ${to}`;

function cloneGraph(state: GraphState): GraphState {
  return {
    entities: new Map(
      [...state.entities].map((
        [name, e],
      ) => [name, { type: e.type, observations: new Set(e.observations) }]),
    ),
    relations: new Set(state.relations),
  };
}

function applyGraphOp(state: GraphState, op: GraphOp): GraphState {
  const next = cloneGraph(state);
  switch (op.op) {
    case "add":
      next.entities.set(op.name, { type: op.type, observations: new Set([op.observation]) });
      break;
    case "observe":
      next.entities.get(op.name)?.observations.add(op.text);
      break;
    case "delete-observation":
      next.entities.get(op.name)?.observations.delete(op.text);
      break;
    case "relate":
      next.relations.add([op.from, op.type, op.to].join("\0"));
      break;
    case "unrelate":
      next.relations.delete([op.from, op.type, op.to].join("\0"));
      break;
    case "delete-entity":
      next.entities.delete(op.name);
      for (const key of [...next.relations]) {
        const [from, , to] = key.split("\0");
        if (from === op.name || to === op.name) next.relations.delete(key);
      }
      break;
  }
  return next;
}

function graphStateFacts(state: GraphState): Set<string> {
  const facts = new Set<string>();
  for (const [name, e] of state.entities) {
    facts.add(entityFact(name, e.type));
    for (const text of e.observations) facts.add(observationFact(name, text));
  }
  for (const key of state.relations) {
    const [from, type, to] = key.split("\0") as [string, string, string];
    facts.add(relationFact(from, type, to));
  }
  return facts;
}

function graphArgs(op: GraphOp): string[] {
  switch (op.op) {
    case "add":
      return ["graph", "add-entity", op.name, "--type", op.type, "--observation", op.observation];
    case "observe":
      return ["graph", "observe", op.name, op.text];
    case "delete-observation":
      return ["graph", "delete-observation", op.name, op.text];
    case "relate":
      return ["graph", "relate", op.from, op.type, op.to];
    case "unrelate":
      return ["graph", "unrelate", op.from, op.type, op.to];
    case "delete-entity":
      return ["graph", "delete-entity", op.name];
  }
}

/** `count` graph operations, each valid on the state the ones before it leave. */
function planGraph(ctx: Context, start: GraphState, count: number, serial: { n: number }) {
  const { rng } = ctx;
  const ops: GraphOp[] = [];
  let state = start;
  for (let i = 0; i < count; i++) {
    const names = [...state.entities.keys()];
    const roll = rng.int(0, 99);
    let op: GraphOp | undefined;
    const n = ++serial.n;
    if (names.length >= 2 && roll < 20) {
      op = { op: "observe", name: rng.pick(names), text: `observation ${n} ${rng.word()}` };
    } else if (names.length >= 2 && roll < 45) {
      const from = rng.pick(names);
      const to = rng.pick(names.filter((name) => name !== from));
      const type = rng.pick(["uses", "owns", "calls"]);
      if (!state.relations.has([from, type, to].join("\0"))) op = { op: "relate", from, type, to };
    } else if (names.length >= 2 && roll < 55) {
      const withObservations = names.filter((name) => state.entities.get(name)!.observations.size);
      if (withObservations.length) {
        const name = rng.pick(withObservations);
        op = {
          op: "delete-observation",
          name,
          text: rng.pick([...state.entities.get(name)!.observations]),
        };
      }
    } else if (names.length >= 2 && roll < 65) {
      if (state.relations.size) {
        const [from, type, to] = rng.pick([...state.relations]).split("\0") as [
          string,
          string,
          string,
        ];
        op = { op: "unrelate", from, type, to };
      }
    } else if (names.length >= 4 && roll < 75) {
      op = { op: "delete-entity", name: rng.pick(names) };
    }
    op ??= {
      op: "add",
      name: `Ent${n}${rng.word(5)}`,
      type: rng.pick(["service", "person", "library"]),
      observation: `observation ${n} ${rng.word()}`,
    };
    ops.push(op);
    state = applyGraphOp(state, op);
  }
  return ops;
}

/** A graph state read back from facts (to go on from what the store holds). */
function graphFromFacts(facts: Set<string>): GraphState {
  const state: GraphState = { entities: new Map(), relations: new Set() };
  for (const fact of facts) {
    const entity = /^entity (\S+) \((.+)\)$/.exec(fact);
    if (entity) {
      const known = state.entities.get(entity[1]!);
      if (known) known.type = entity[2]!;
      else state.entities.set(entity[1]!, { type: entity[2]!, observations: new Set() });
    }
  }
  for (const fact of facts) {
    const observation = /^observation of (\S+): (.+)$/.exec(fact);
    if (observation) state.entities.get(observation[1]!)?.observations.add(observation[2]!);
    const relation = /^relation (\S+) (\S+) (\S+)$/.exec(fact);
    if (relation) state.relations.add([relation[1], relation[2], relation[3]].join("\0"));
  }
  return state;
}

async function benchGraph(ctx: Context, quota: number): Promise<Tally> {
  const t = newTally(
    "graph",
    "a bash loop of `graph add-entity|observe|relate|delete-observation|unrelate|" +
      "delete-entity`; acked = each operation that exited 0; the whole graph is compared",
  );
  const store = await newStore(join(ctx.tmp, "graph", "store"));
  let state: GraphState = { entities: new Map(), relations: new Set() };
  const serial = { n: 0 };
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const plan = planGraph(ctx, state, 30, serial);
    const delay = loopDelay(ctx);
    const run = await killLoop(ctx, store, plan.map((op, k) => ackStep(k, graphArgs(op))), delay);
    if (run.running) t.kills++;
    else t.finishedFirst++;
    const acks = loopAcks(t, run);
    t.acked += acks;
    for (const op of plan.slice(0, acks)) state = applyGraphOp(state, op);
    const inflight = plan[acks];
    const acked = graphStateFacts(state);
    const withInflight = inflight ? graphStateFacts(applyGraphOp(state, inflight)) : acked;
    logRound(t, round, quota, `killed after ${delay} ms, ${acks} operations acknowledged`);
    const opened = await afterKill(t, ctx, store, `graph round ${round}`, async () => {
      const actual = await graphFacts(store);
      const lost: string[] = [];
      for (const fact of acked) {
        if (!actual.has(fact) && withInflight.has(fact)) lost.push(`${fact} is missing`);
      }
      for (const fact of actual) {
        if (!acked.has(fact) && !withInflight.has(fact)) {
          lost.push(`${fact} is there, though acknowledged operations removed or never made it`);
        }
      }
      // Only the running operation may be half there: an entity made without its observation.
      if (inflight?.op === "add" && actual.has(entityFact(inflight.name, inflight.type))) {
        const observation = observationFact(inflight.name, inflight.observation);
        if (!actual.has(observation)) {
          lost.push(`the running add-entity left ${inflight.name} half made`);
        }
      }
      state = graphFromFacts(actual);
      return { checked: acked.size, lost };
    });
    if (!opened) break;
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// Agent sessions

/** One Claude Code transcript record, as Claude Code writes them. */
function claudeLine(
  session: string,
  type: "user" | "assistant",
  content: unknown,
  cwd: string,
  at: number,
  uuid: string,
): string {
  return JSON.stringify({
    type,
    sessionId: session,
    cwd,
    isSidechain: false,
    uuid,
    timestamp: new Date(Date.UTC(2026, 1, 1, 10, 0, 0) + at * 1000).toISOString(),
    message: { role: type, content },
  }) + "\n";
}

/** A turn: a prompt naming `marker`, a Read tool call and an answer (3 lines). */
function claudeTurn(ctx: Context, session: string, cwd: string, marker: string, at: number) {
  const uuid = () => ctx.rng.uuid();
  return claudeLine(session, "user", `please look at the ${marker} handler`, cwd, at, uuid()) +
    claudeLine(
      session,
      "assistant",
      [{
        type: "tool_use",
        id: `toolu_${at}`,
        name: "Read",
        input: { file_path: join(cwd, `${marker}.py`) },
      }],
      cwd,
      at + 1,
      uuid(),
    ) +
    claudeLine(
      session,
      "assistant",
      [{ type: "text", text: `The ${marker} handler retries twice and then gives up.` }],
      cwd,
      at + 2,
      uuid(),
    );
}

/** Which of the `[marker, turn id]` pairs a words-only search finds (by the turn's id). */
async function findTurns(
  store: string,
  dir: string,
  turns: Array<{ marker: string; id: string }>,
): Promise<string[]> {
  const answers = await searchBatch(
    store,
    dir,
    turns.map((turn) => ({ id: turn.id, query: turn.marker, include: "sessions" })),
  );
  return turns.filter((turn) => !(answers.get(turn.id) ?? []).some((hit) => hit.id === turn.id))
    .map((turn) => `turn ${turn.id} ("${turn.marker}") is not found`);
}

async function benchIngest(ctx: Context, quota: number): Promise<Tally> {
  const t = newTally(
    "ingest claude",
    "a bash loop appending a turn to a transcript then `ingest claude FILE`; acked = each turn " +
      "whose ingest exited 0; then the same ingest again must find every turn",
  );
  const dir = join(ctx.tmp, "ingest");
  const cwd = join(dir, "project");
  await Deno.mkdir(cwd, { recursive: true });
  const store = await newStore(join(dir, "store"));
  const session = ctx.rng.uuid();
  const transcript = join(dir, `${session}.jsonl`);
  await Deno.writeTextFile(transcript, "");
  let linesWritten = 0;
  let at = 0;
  const acked: Array<{ marker: string; id: string }> = [];
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const plan: Array<{ marker: string; id: string; file: string }> = [];
    for (let k = 0; k < 20; k++) {
      const marker = ctx.rng.word(10);
      const file = join(dir, `turn-${round}-${k}.jsonl`);
      await Deno.writeTextFile(file, claudeTurn(ctx, session, cwd, marker, at += 3));
      plan.push({ marker, id: `${session}:${linesWritten + 3 * k}`, file });
    }
    const steps = plan.map((p, k) =>
      `cat ${sq(p.file)} >> ${sq(transcript)} && ` +
      ackStep(k, ["ingest", "claude", transcript, "--json"])
    );
    const delay = loopDelay(ctx);
    const run = await killLoop(ctx, store, steps, delay);
    if (run.running) t.kills++;
    else t.finishedFirst++;
    const acks = loopAcks(t, run);
    t.acked += acks;
    acked.push(...plan.slice(0, acks));
    const text = await Deno.readTextFile(transcript);
    if (!text.endsWith("\n") && text.length > 0) {
      t.notes.push(`ingest round ${round}: the kill cut a transcript line (the harness's append)`);
      await Deno.writeTextFile(transcript, "\n", { append: true });
    }
    const total = (await Deno.readTextFile(transcript)).split("\n").length - 1;
    const appended = plan.slice(0, Math.floor((total - linesWritten) / 3));
    linesWritten = total;
    logRound(t, round, quota, `killed after ${delay} ms, ${acks} ingests acknowledged`);
    const opened = await afterKill(
      t,
      ctx,
      store,
      `ingest round ${round}`,
      async () => ({ checked: acked.length, lost: await findTurns(store, dir, acked) }),
      async () => {
        const again = await cairn(store, ["ingest", "claude", transcript, "--json"]);
        if (again.code !== 0) {
          return [
            `\`cairn ingest claude ${transcript}\` exited ${again.code}: ${brief(again.err)}`,
          ];
        }
        for (const turn of appended.slice(acks)) acked.push(turn);
        return await findTurns(store, dir, acked);
      },
    );
    for (const p of plan) await Deno.remove(p.file);
    if (!opened) break;
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// Code

/** A folder of small Python files; each file's function names, by path. */
class CodeTree {
  readonly files = new Map<string, string[]>();
  constructor(readonly root: string, readonly ctx: Context) {}

  async write(path: string, serial: number): Promise<void> {
    const { rng } = this.ctx;
    const names = [`compute_${rng.word()}_${serial}`, `helper_${rng.word()}_${serial}`];
    const body = `def ${names[0]}(value):\n    """Scale the ${rng.word()} reading ${serial}."""\n` +
      `    return value * ${serial}\n\n\ndef ${names[1]}(items):\n` +
      `    return [item + ${serial} for item in items]\n`;
    await Deno.mkdir(join(this.root, "pkg"), { recursive: true });
    await Deno.writeTextFile(join(this.root, path), body);
    this.files.set(path, names);
  }

  async remove(path: string): Promise<void> {
    await Deno.remove(join(this.root, path));
    this.files.delete(path);
  }

  /** Every function with its file (small functions share a chunk, found by the file). */
  functions(files: Map<string, string[]> = this.files): Fn[] {
    return [...files].flatMap(([path, names]) => names.map((name) => ({ name, path })));
  }
}

/** A function name and the file that defines it. */
interface Fn {
  name: string;
  path: string;
}

/**
 * The functions a words-only code search for their name does not find in their file of
 * `project` (within its first 5 answers).
 */
async function missingFunctions(
  store: string,
  dir: string,
  project: string,
  functions: Fn[],
): Promise<string[]> {
  const answers = await searchBatch(
    store,
    dir,
    functions.map((fn) => ({ id: fn.name, query: fn.name, include: "code" })),
  );
  return functions.filter((fn) =>
    !(answers.get(fn.name) ?? []).some((hit) =>
      hit.project === project && hit.file_path === fn.path
    )
  ).map((fn) => `${fn.name} (${fn.path})`);
}

async function benchIndex(ctx: Context, quota: number): Promise<Tally> {
  const t = newTally(
    "index",
    "`index FOLDER` (120 Python files, 40 rewritten and 1 added before each run) killed, then " +
      "`index` again; acked = every function of the last finished run in a file not rewritten " +
      "since",
  );
  const dir = join(ctx.tmp, "index");
  const tree = new CodeTree(join(dir, "crashcode"), ctx);
  let serial = 0;
  for (let i = 0; i < 120; i++) await tree.write(`pkg/mod_${i}.py`, ++serial);
  const store = await newStore(join(dir, "store"));
  const project = "crashcode";
  const indexArgs = ["index", tree.root, "--project", project, "--json"];
  const calibration = await cairn(store, indexArgs);
  if (calibration.code !== 0) {
    t.failures.push(`the first index failed: ${brief(calibration.err)}`);
    return t;
  }
  let indexed = new Map(tree.files);
  // About a third of the files to embed again, and the process's start.
  let estimate = 1_000 + calibration.ms * 41 / 120;
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const changed = new Set<string>();
    const candidates = [...tree.files.keys()].filter((path) => path.startsWith("pkg/mod_"));
    while (changed.size < 40) changed.add(ctx.rng.pick(candidates));
    for (const path of changed) await tree.write(path, ++serial);
    const added = `pkg/new_${round}.py`;
    await tree.write(added, ++serial);
    changed.add(added);
    const ackedFunctions = tree.functions(
      new Map([...indexed].filter(([path]) => !changed.has(path))),
    );
    const delay = commandDelay(ctx, estimate);
    const group = startCairn(store, indexArgs);
    await sleep(delay);
    const running = await group.kill();
    if (running) t.kills++;
    else {
      t.finishedFirst++;
      estimate = group.ranMs;
    }
    const finished = !running && group.code === 0;
    if (!running && !finished) {
      t.commandErrors++;
      bump(t.commandErrorSamples, `index exit ${group.code}: ${lastLines(group.err)}`);
    }
    const mustFind = finished ? tree.functions() : ackedFunctions;
    if (finished) {
      indexed = new Map(tree.files);
      t.acked += mustFind.length;
    }
    logRound(t, round, quota, `killed after ${delay} ms${finished ? " (had finished)" : ""}`);
    const opened = await afterKill(
      t,
      ctx,
      store,
      `index round ${round}`,
      async () => ({
        checked: mustFind.length,
        lost: (await missingFunctions(store, dir, project, mustFind)).map((name) =>
          `function ${name} (indexed by a finished run) is not found`
        ),
      }),
      async () => {
        const again = await cairn(store, indexArgs);
        if (again.code !== 0) {
          return [`\`cairn index ${tree.root}\` exited ${again.code}: ${brief(again.err)}`];
        }
        indexed = new Map(tree.files);
        return (await missingFunctions(store, dir, project, tree.functions())).map((name) =>
          `function ${name} is not found after the index finished`
        );
      },
    );
    if (!opened) break;
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// compact, replay, delete-project: a copy of a prepared store, the command killed

interface Template {
  store: string;
  dir: string;
  memories: Map<string, string>;
  forgotten: Set<string>;
  purged: Map<string, string>;
  graph: Set<string>;
  code: CodeTree;
  turns: Array<{ marker: string; id: string }>;
}

/** A store with memories (revised, forgotten, purged), a graph, indexed code and a session. */
async function buildTemplate(ctx: Context): Promise<Template> {
  const dir = join(ctx.tmp, "template");
  const store = await newStore(join(dir, "store"));
  const memories = await importSome(ctx, store, 150, "tpl");
  const ids = [...memories.keys()];
  for (const id of ids.slice(0, 8)) {
    const text = `Revised template note: the ${ctx.rng.word()} job runs at ${ctx.rng.int(1, 23)}h`;
    await cairnOk(store, ["revise", id, text]);
    memories.set(id, text);
  }
  const forgotten = new Set(ids.slice(8, 16));
  for (const id of forgotten) await cairnOk(store, ["forget", id]);
  const purged = new Map<string, string>();
  for (const id of ids.slice(16, 19)) {
    await cairnOk(store, ["forget", id, "--purge"]);
    purged.set(id, memories.get(id)!);
    memories.delete(id);
  }
  let graph: GraphState = { entities: new Map(), relations: new Set() };
  for (const op of planGraph(ctx, graph, 12, { n: 0 })) {
    await cairnOk(store, graphArgs(op));
    graph = applyGraphOp(graph, op);
  }
  const code = new CodeTree(join(dir, "tplcode"), ctx);
  for (let i = 0; i < 300; i++) await code.write(`pkg/mod_${i}.py`, i + 1);
  await cairnOk(store, ["index", code.root, "--project", "tplcode", "--json"]);
  const session = ctx.rng.uuid();
  const transcript = join(dir, `${session}.jsonl`);
  const turns: Array<{ marker: string; id: string }> = [];
  let text = "";
  for (let k = 0; k < 10; k++) {
    const marker = ctx.rng.word(10);
    text += claudeTurn(ctx, session, code.root, marker, 3 * k);
    turns.push({ marker, id: `${session}:${3 * k}` });
  }
  await Deno.writeTextFile(transcript, text);
  await cairnOk(store, ["ingest", "claude", transcript, "--json"]);
  const template = {
    store,
    dir,
    memories,
    forgotten,
    purged,
    graph: graphStateFacts(graph),
    code,
    turns,
  };
  const problems = await checkTemplate(template, store, "code");
  if (problems.lost.length) {
    throw new Error(`the template store is not as built: ${problems.lost.join("; ")}`);
  }
  return template;
}

/** Checks a copy of the template; `code`: whether its code must be there, gone, or either. */
async function checkTemplate(
  tpl: Template,
  store: string,
  code: "code" | "no code" | "either",
): Promise<Check> {
  const found = await checkMemories(store, tpl.memories, {
    project: "tpl",
    forgotten: tpl.forgotten,
    purged: tpl.purged,
  });
  const lost = [...found.lost];
  const graph = await graphFacts(store);
  for (const fact of tpl.graph) if (!graph.has(fact)) lost.push(`graph: ${fact} is missing`);
  for (const fact of graph) if (!tpl.graph.has(fact)) lost.push(`graph: ${fact} appeared`);
  lost.push(...await findTurns(store, tpl.dir, tpl.turns));
  const names = tpl.code.functions();
  if (code === "code") {
    for (const name of await missingFunctions(store, tpl.dir, "tplcode", names)) {
      lost.push(`function ${name} is not found`);
    }
  } else if (code === "no code") {
    const missing = new Set(await missingFunctions(store, tpl.dir, "tplcode", names));
    const still = names.filter((fn) => !missing.has(`${fn.name} (${fn.path})`));
    if (still.length) {
      lost.push(
        `${still.length} functions of the deleted project are still found (${still[0]!.name})`,
      );
    }
  }
  return {
    checked: found.checked + tpl.graph.size + tpl.turns.length +
      (code === "either" ? 0 : names.length),
    lost,
    ...(found.duplicated ? { duplicated: found.duplicated } : {}),
  };
}

async function copyStore(from: string, to: string): Promise<void> {
  const copy = await new Deno.Command("cp", { args: ["-a", from, to] }).output();
  if (!copy.success) throw new Error(`cp -a ${from} ${to} failed`);
}

async function benchOnTemplate(
  ctx: Context,
  template: () => Promise<Template>,
  command: "compact" | "replay" | "delete-project",
  quota: number,
): Promise<Tally> {
  const args = command === "delete-project" ? ["delete-project", "tplcode"] : [command];
  const t = newTally(
    command,
    `\`${args.join(" ")}\` on a copy of a store of 150 memories (revised, forgotten, purged), ` +
      "a graph, 300 indexed files and a session, killed; then run again; acked = all of it" +
      (command === "delete-project" ? " (the code: gone once the command printed so)" : ""),
  );
  const tpl = await template();
  const dir = join(ctx.tmp, command);
  await Deno.mkdir(dir, { recursive: true });
  const calibrationStore = join(dir, "calibration");
  await copyStore(tpl.store, calibrationStore);
  const calibration = await cairn(calibrationStore, args);
  await Deno.remove(calibrationStore, { recursive: true });
  if (calibration.code !== 0) {
    t.failures.push(`\`cairn ${args.join(" ")}\` failed on the store: ${brief(calibration.err)}`);
    return t;
  }
  t.notes.push(`${command}: left alone it took ${(calibration.ms / 1000).toFixed(1)} s`);
  let estimate = calibration.ms;
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const store = join(dir, `round-${round}`);
    await copyStore(tpl.store, store);
    const delay = commandDelay(ctx, estimate);
    const group = startCairn(store, args);
    await sleep(delay);
    const running = await group.kill();
    if (running) t.kills++;
    else {
      t.finishedFirst++;
      estimate = group.ranMs;
    }
    const finished = !running && group.code === 0;
    if (!running && !finished) {
      t.commandErrors++;
      bump(t.commandErrorSamples, `${command} exit ${group.code}: ${lastLines(group.err)}`);
    }
    if (finished) t.acked++;
    logRound(t, round, quota, `killed after ${delay} ms${finished ? " (had finished)" : ""}`);
    const codeState = command !== "delete-project" ? "code" : finished ? "no code" : "either";
    const opened = await afterKill(
      t,
      ctx,
      store,
      `${command} round ${round}`,
      () => checkTemplate(tpl, store, codeState),
      async () => {
        if (command === "delete-project") {
          const projects = await cairnOk(store, ["projects", "--json"]);
          const listed = (JSON.parse(projects.out) as { projects: Array<{ name?: string }> })
            .projects.some((p) => JSON.stringify(p).includes('"tplcode"'));
          if (listed) {
            const again = await cairn(store, args);
            if (again.code !== 0) {
              return [`\`cairn ${args.join(" ")}\` exited ${again.code}: ${brief(again.err)}`];
            }
          }
          return (await checkTemplate(tpl, store, "no code")).lost;
        }
        const again = await cairn(store, args);
        if (again.code !== 0) {
          return [`\`cairn ${args.join(" ")}\` exited ${again.code}: ${brief(again.err)}`];
        }
        return [];
      },
    );
    if (opened) await Deno.remove(store, { recursive: true });
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// An owner killed while MCP and CLI calls go to it

/** Sequential `remember` tool calls over MCP (HTTP) to the owner, until `stop` or an error. */
async function mcpRemember(
  port: number,
  token: string,
  texts: string[],
  stop: { now: boolean },
  acked: Map<string, string>,
  errors: string[],
): Promise<void> {
  const client = new Client({ name: "cairn-crash-bench", version: "0.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    for (const content of texts) {
      if (stop.now) break;
      const result = await client.callTool(
        { name: "remember", arguments: { content } },
        undefined,
        { timeout: 60_000 },
      );
      const id = (result.structuredContent as { id?: unknown } | undefined)?.id;
      if (result.isError || typeof id !== "string") {
        errors.push(`remember answered: ${brief(JSON.stringify(result.content))}`);
        break;
      }
      acked.set(id, content);
    }
  } catch (error) {
    errors.push((error as Error).message);
  } finally {
    await within(client.close(), 5_000).catch(() => {});
  }
}

async function benchServe(ctx: Context, quota: number): Promise<Tally> {
  const t = newTally(
    "serve owner",
    "`serve --idle-timeout 60` SIGKILLed while `remember` calls reach it over MCP (HTTP) and a " +
      "CLI loop relays `remember --json` to it; the CLI loop (by then writing itself) killed " +
      "2.5 s later; acked = every id answered (the CLI call in flight when the owner dies exits 1 " +
      "saying the owner stopped: counted as a command error)",
  );
  const store = await newStore(join(ctx.tmp, "serve", "store"));
  const expected = new Map<string, string>();
  let n = 100_000;
  let mcpCut = 0;
  for (let round = 1; t.kills < quota && round <= 2 * quota; round++) {
    t.rounds++;
    const owner = startCairn(store, ["serve", "--idle-timeout", "60"]);
    let record: { pid: number; port: number } | undefined;
    for (let i = 0; i < 1200 && record?.pid !== owner.pgid && !owner.exited; i++) {
      await sleep(50);
      try {
        record = JSON.parse(await Deno.readTextFile(join(store, "serve.json")));
      } catch { /* not yet */ }
    }
    if (record?.pid !== owner.pgid) {
      await owner.kill();
      t.failures.push(`serve round ${round}: the owner did not start: ${brief(owner.err)}`);
      continue;
    }
    const token = (await Deno.readTextFile(join(store, "serve.token"))).trim();
    const texts = Array.from({ length: 40 }, () => memoryText(ctx, ++n));
    const loop = new Group("bash", [
      "-c",
      'for text in "$@"; do "$DENO" run --allow-all --quiet "$MAIN" --store "$S" remember ' +
      '"$text" --json || echo "FAIL k $?"; done',
      "loop",
      ...texts,
    ], { DENO: Deno.execPath(), MAIN, S: store });
    const stop = { now: false };
    const viaMcp = new Map<string, string>();
    const mcpErrors: string[] = [];
    const mcpTexts = Array.from({ length: 200 }, () => memoryText(ctx, ++n));
    const mcp = mcpRemember(record.port, token, mcpTexts, stop, viaMcp, mcpErrors);
    const delay = loopDelay(ctx);
    await sleep(delay);
    const ownerRunning = await owner.kill();
    if (ownerRunning) t.kills++;
    else t.finishedFirst++;
    await sleep(2_500);
    stop.now = true;
    if (await within(mcp, 30_000) === "timeout") mcpErrors.push("the MCP loop did not stop");
    await loop.kill();
    if (noteWarnings(t, `serve round ${round}, the CLI loop after the owner's death`, loop.err)) {
      t.warned++;
    }
    const cliIds = remembered(loop.out);
    const failed = lines(loop.out).filter((line) => line.startsWith("FAIL"));
    t.commandErrors += failed.length;
    for (const line of failed) bump(t.commandErrorSamples, `${line}: ${lastLines(loop.err)}`);
    for (const { id, content } of cliIds) expected.set(id, content);
    for (const [id, content] of viaMcp) expected.set(id, content);
    if (mcpErrors.length) mcpCut++;
    t.acked += cliIds.length + viaMcp.size;
    logRound(
      t,
      round,
      quota,
      `owner killed after ${delay} ms; ${viaMcp.size} MCP and ${cliIds.length} CLI ids ` +
        "acknowledged",
    );
    const opened = await afterKill(
      t,
      ctx,
      store,
      `serve round ${round}`,
      () => checkMemories(store, expected),
    );
    if (!opened) break;
  }
  t.notes.push(
    `serve owner: MCP calls cut by the owner's death in ${mcpCut} rounds (expected: the call ` +
      "in flight fails, nothing it acknowledged may be lost)",
  );
  return t;
}

// ---------------------------------------------------------------------------------------------
// The report

function row(t: Tally): string {
  const verifyAfter = t.verifyFailed === 0 ? "–" : `${t.verifyReopenOk}/${t.verifyFailed}`;
  const rerun = t.reruns === 0 ? "–" : `${t.rerunOk}/${t.reruns}`;
  return `| ${t.name} | ${t.kills} | ${t.finishedFirst} | ${t.acked} | ${t.checked} | ${t.lost} | ` +
    `${t.duplicated} | ${t.unopenable} | ${t.checkErrors} | ${t.verifyOk}/${
      t.verifyOk + t.verifyFailed
    } | ${verifyAfter} | ${rerun} | ${t.commandErrors} | ${t.torn} | ${t.warned} | ${
      t.seconds.toFixed(0)
    } |`;
}

function report(
  tallies: Tally[],
  seed: number,
  quota: number,
  seconds: number,
  code: string,
): string {
  const total = newTally("**total**", "");
  for (const t of tallies) {
    for (
      const key of [
        "rounds",
        "kills",
        "finishedFirst",
        "acked",
        "checked",
        "lost",
        "duplicated",
        "unopenable",
        "checkErrors",
        "verifyOk",
        "verifyFailed",
        "verifyReopenOk",
        "reruns",
        "rerunOk",
        "commandErrors",
        "torn",
        "warned",
        "seconds",
      ] as const
    ) total[key] += t[key];
  }
  const out: string[] = [];
  out.push("## Crash safety (SIGKILL)");
  out.push("");
  out.push(
    `${total.kills} SIGKILLs of running \`cairn\` processes (asked for ${quota}; seed ${seed}, ` +
      `\`CAIRN_BENCH_SEED=${seed} CAIRN_BENCH_CRASH_KILLS=${quota}\` repeats the plan, not the ` +
      `timing), ${(seconds / 60).toFixed(1)} minutes in all: **${total.lost} acknowledged ` +
      `writes lost, ${total.unopenable} stores left unopenable** (${total.checked} ` +
      `acknowledged items checked). Code measured: ${code}.`,
  );
  out.push("");
  out.push(
    "After each kill: `cairn status --json` must open the store; everything acknowledged so far " +
      "is read back (`list --json`, `graph read --json`, words-only `recall --batch` for code " +
      "and session turns, and the log's files for purged text); `cairn verify` is run, and when " +
      "it fails, the store is opened once more and `verify` run again; where a user would run " +
      "the command again, it is, and must finish with the right result. Kill delays: 50 ms to " +
      "3 s after a loop starts; for a single command, 50 ms to 0.95 × its undisturbed duration " +
      "(at least 300 ms; after a round whose command had already finished, that run's duration " +
      "is the new estimate; such a round does not count as a kill, and is checked all the " +
      "same). Every process runs with `CAIRN_LOCK_WAIT_SECONDS=30`.",
  );
  out.push("");
  out.push(
    "| workload | kills | finished first | acked writes | acked items checked | lost | " +
      "duplicated | unopenable | checks not made | verify ok right after | verify ok after " +
      "reopen | re-run ok | command errors | torn tails cut | opens that warned | s |",
  );
  out.push("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
  for (const t of tallies) out.push(row(t));
  out.push(row(total));
  out.push("");
  out.push(
    "_acked writes_: writes the killed processes acknowledged (ids printed, loop steps that " +
      "exited 0, runs that had finished). _acked items checked_: items read back after the kills " +
      "(all acknowledged so far, after every kill). _command errors_: commands in the loops that " +
      "exited non-zero before the kill. _torn tails cut_: opens after a kill that reported cutting " +
      "a torn last log record. _opens that warned_: first opens after a kill (`status`, or for " +
      "the owner the CLI loop's next command) that printed a warning about what the crash left.",
  );
  out.push("");
  out.push("Workloads:");
  out.push("");
  for (const t of tallies) out.push(`- ${t.name}: ${t.what}.`);
  const problems = new Map<string, number>();
  for (const t of tallies) {
    for (const [line, n] of t.verifyProblems) problems.set(`${t.name}: ${line}`, n);
  }
  out.push("");
  out.push("Warnings printed by the first open after a kill (count, then one exact example):");
  out.push("");
  const warnings = tallies.flatMap((t) => [...t.warnings.values()]);
  if (warnings.length === 0) out.push("- none.");
  for (const { n, example } of warnings) out.push(`- ${n}× ${example.replaceAll("|", "\\|")}`);
  out.push("");
  out.push("`cairn verify` right after a kill (before the reopen):");
  out.push("");
  if (problems.size === 0) out.push("- no problem reported.");
  for (const [line, n] of problems) out.push(`- ${n}× ${line.replaceAll("|", "\\|")}`);
  const errors = tallies.flatMap((t) =>
    [...t.commandErrorSamples].map(([line, n]) => `${n}× ${t.name}: ${line}`)
  );
  if (errors.length) {
    out.push("");
    out.push("Commands that exited non-zero before their kill:");
    out.push("");
    for (const line of errors) out.push(`- ${line.replaceAll("|", "\\|")}`);
  }
  const failures = tallies.flatMap((t) => t.failures);
  out.push("");
  out.push("Failures:");
  out.push("");
  if (failures.length === 0) out.push("- none.");
  for (const line of failures) out.push(`- ${line.replaceAll("|", "\\|")}`);
  const notes = tallies.flatMap((t) => t.notes);
  if (notes.length) {
    out.push("");
    out.push("Notes:");
    out.push("");
    for (const line of notes) out.push(`- ${line.replaceAll("|", "\\|")}`);
  }
  return out.join("\n");
}

// ---------------------------------------------------------------------------------------------

/**
 * SIGKILLs real `cairn` processes during every command that writes and checks that no
 * acknowledged write is lost and every store still opens; writes the "crash" section of
 * bench/RESULTS.md.
 */
export async function benchCrash(): Promise<void> {
  const seed = Number(Deno.env.get("CAIRN_BENCH_SEED") ?? DEFAULT_SEED);
  const quota = Number(Deno.env.get("CAIRN_BENCH_CRASH_KILLS") ?? DEFAULT_KILLS);
  if (!Number.isInteger(seed) || !Number.isInteger(quota) || quota < 1) {
    throw new Error("CAIRN_BENCH_SEED and CAIRN_BENCH_CRASH_KILLS take whole numbers");
  }
  console.log(`[crash] seed ${seed}, ${quota} kills`);
  const ctx: Context = {
    rng: new Rng(seed),
    tmp: await Deno.makeTempDir({ prefix: "cairn-bench-crash-" }),
    kept: [],
  };
  const interrupted = async () => {
    stopping = true;
    await killEverything();
    for (let i = 0; i < 5; i++) {
      await sleep(200);
      await killEverything();
      await Deno.remove(ctx.tmp, { recursive: true }).catch(() => {});
    }
    Deno.exit(130);
  };
  Deno.addSignalListener("SIGINT", interrupted);
  Deno.addSignalListener("SIGTERM", interrupted);
  const started = performance.now();
  let code = `the checkout at ${ROOT} as it was during the run`;
  let template: Promise<Template> | undefined;
  const sharedTemplate = () => (template ??= buildTemplate(ctx));
  const workloads: Array<[string, (quota: number) => Promise<Tally>]> = [
    ["remember", (q) => benchRemember(ctx, q)],
    ["serve owner", (q) => benchServe(ctx, q)],
    ["import", (q) => benchImport(ctx, q)],
    ["revise", (q) => benchRevise(ctx, q)],
    ["forget", (q) => benchForget(ctx, q, false)],
    ["forget --purge", (q) => benchForget(ctx, q, true)],
    ["graph", (q) => benchGraph(ctx, q)],
    ["ingest claude", (q) => benchIngest(ctx, q)],
    ["index", (q) => benchIndex(ctx, q)],
    ["compact", (q) => benchOnTemplate(ctx, sharedTemplate, "compact", q)],
    ["replay", (q) => benchOnTemplate(ctx, sharedTemplate, "replay", q)],
    ["delete-project", (q) => benchOnTemplate(ctx, sharedTemplate, "delete-project", q)],
  ];
  // The kills, spread evenly; the remainder to workloads the RNG picks.
  const quotas = workloads.map(() => Math.floor(quota / workloads.length));
  for (let left = quota % workloads.length; left > 0;) {
    const i = ctx.rng.int(0, workloads.length - 1);
    if (quotas[i] === Math.floor(quota / workloads.length)) {
      quotas[i]!++;
      left--;
    }
  }
  const tallies: Tally[] = [];
  try {
    if (Deno.env.get("CAIRN_BENCH_CRASH_CODE") !== "worktree") {
      const commit = await snapshotCode(ctx.tmp);
      code = `commit ${commit.slice(0, 7)} (a snapshot of HEAD taken when the run started)`;
    }
    console.log(`[crash] code: ${code}`);
    for (const [i, [name, run]] of workloads.entries()) {
      const share = quotas[i]!;
      if (share === 0) continue;
      console.log(`[crash] ${name}: ${share} kills`);
      const began = performance.now();
      let tally: Tally;
      try {
        tally = await run(share);
      } catch (error) {
        tally = newTally(name, "(did not run to its end)");
        tally.failures.push(`${name}: the workload stopped: ${(error as Error).stack}`);
        console.log(`[crash] ${name} stopped: ${(error as Error).message}`);
      }
      tally.seconds = (performance.now() - began) / 1000;
      tallies.push(tally);
    }
  } finally {
    await killEverything();
    Deno.removeSignalListener("SIGINT", interrupted);
    Deno.removeSignalListener("SIGTERM", interrupted);
    await Deno.remove(ctx.tmp, { recursive: true }).catch(() => {});
  }
  const seconds = (performance.now() - started) / 1000;
  const body = report(tallies, seed, quota, seconds, code);
  await writeSection("crash", await runInfo("crash"), body);
  console.log(body);
  if (ctx.kept.length) console.log(`[crash] stores kept for inspection:\n${ctx.kept.join("\n")}`);
}
