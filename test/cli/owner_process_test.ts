import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { StoreLock } from "../../events/lock.ts";
import { readOwnerRecord, writeOwnerRecord } from "../../src/mcp/owner_file.ts";
import { startedOwner } from "../../src/mcp/owner_start.ts";
import { bagOfWordsEmbedder, bagOfWordsServer } from "../embed/bag_of_words.ts";
import { isAlive, killOwner } from "../mcp/mcp_client.ts";
import { cli, MAIN, misconfiguredStore, tempDir } from "../helpers.ts";
import { serveHere } from "../mcp/serve_here.ts";
import { cliHere } from "./in_process.ts";

/** A word in the test repository's code: embedding a text with it waits until the test allows. */
const HELD = "zyzzyva";

/** A store whose model is a bag-of-words endpoint, and `cairn` run as a user runs it: with an owner. */
async function ownedStore(dir: string, url: string) {
  const store = await bagOfWordsStore(dir, url);
  const cairn = (args: string[]) => cli(["--store", store, ...args], { CAIRN_NO_OWNER: "" });
  return {
    store,
    cairn,
    status: () => statusOf(cairn),
    /** Stops the owner a test started, if one runs. */
    [Symbol.asyncDispose]: async () => {
      if (await readOwnerRecord(store)) await killOwner(store);
    },
  };
}

/**
 * The same store with its owner serving in this process, and `cairn` run here
 * (from the folder `cwd`, if given), relayed to that owner as from a terminal.
 */
async function servedStore(dir: string, url: string) {
  const store = await bagOfWordsStore(dir, url);
  const serve = await serveHere(store);
  const cairn = (args: string[], cwd?: string) =>
    cliHere(["--store", store, ...args], cwd ? { cwd } : {});
  return {
    store,
    cairn,
    status: () => statusOf(cairn),
    [Symbol.asyncDispose]: () => serve[Symbol.asyncDispose](),
  };
}

async function bagOfWordsStore(dir: string, url: string): Promise<string> {
  const store = join(dir, "store");
  await Deno.mkdir(store, { recursive: true });
  await Deno.writeTextFile(
    join(store, "config.json"),
    JSON.stringify({ embedder: bagOfWordsEmbedder(url) }),
  );
  return store;
}

async function statusOf(cairn: (args: string[]) => ReturnType<typeof cli>) {
  const status = await cairn(["status", "--json"]);
  assert.equal(status.code, 0, status.stderr);
  return JSON.parse(status.stdout);
}

/** A repository of three small Python files whose texts hold {@linkcode HELD}. */
async function repository(dir: string, name = "ledger"): Promise<string> {
  const repo = join(dir, name);
  await Deno.mkdir(repo, { recursive: true });
  for (const file of ["balance", "audit", "export"]) {
    await Deno.writeTextFile(
      join(repo, `${file}.py`),
      `def ${file}_${HELD}(entries):\n    """The ${file} of the ledger."""\n    return len(entries)\n`,
    );
  }
  return repo;
}

/** Waits up to 5 s for process `pid` to exit; fails the test if it does not. */
async function exited(pid: number): Promise<void> {
  for (let i = 0; i < 200 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(!isAlive(pid), `process ${pid} exited`);
}

function waiting(status: { vectors: { lag: { pending: Array<{ documents: number }> } } }) {
  return status.vectors.lag.pending.reduce((sum, p) => sum + p.documents, 0);
}

Deno.test("a command starts the store's owner in the background, later ones use it, and cairn stop stops it", async () => {
  await using tmp = await tempDir();
  await using embeddings = bagOfWordsServer();
  await using owned = await ownedStore(tmp.path, embeddings.url);

  const first = await owned.cairn(["remember", "Deploys go out on Tuesday afternoons"]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, /starting the store's owner \(cairn serve\)/);
  const owner = (await readOwnerRecord(owned.store))!;
  assert.ok(owner && isAlive(owner.pid), "an owner runs after the command");

  const second = await owned.cairn(["recall", "when do deploys go out?"]);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /Tuesday afternoons/);
  assert.doesNotMatch(second.stderr, /starting/, "the running owner answered");
  const status = await owned.status();
  assert.equal(status.owner.pid, owner.pid);
  assert.equal(status.owner.port, owner.port);
  assert.equal(status.memories, 1);
  // A question past the limit, sent by the fast path, is told by recall's own words.
  const long = await owned.cairn(["recall", "b ".repeat(40_000)]);
  assert.equal(long.code, 2, long.stderr);
  assert.match(long.stderr, /the query has 7999\d characters; the limit is 65536/);

  // An owner running older code (an upgrade since it started) steps aside for the next command.
  await writeOwnerRecord(owned.store, { ...owner, build: 1 });
  const upgraded = await owned.cairn(["recall", "when do deploys go out?"]);
  assert.equal(upgraded.code, 0, upgraded.stderr);
  assert.match(upgraded.stdout, /Tuesday afternoons/);
  assert.match(
    upgraded.stderr,
    new RegExp(`the store's owner \\(pid ${owner.pid}\\) runs an older cairn; it steps aside`),
  );
  await exited(owner.pid);
  const successor = (await readOwnerRecord(owned.store))!;
  assert.notEqual(successor.pid, owner.pid);
  assert.ok(successor.build! > 1, "the new owner records its code's time");
  const same = await owned.cairn(["recall", "deploys"]);
  assert.doesNotMatch(same.stderr, /older|starting/, "an owner of the same code stays");

  const stopped = await owned.cairn(["stop"]);
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.equal(stopped.stdout.trim(), `stopped the store's owner (pid ${successor.pid})`);
  assert.equal(await readOwnerRecord(owned.store), undefined, "the owner let go of the store");
  await exited(successor.pid);

  const here = await owned.cairn(["--no-owner", "status", "--json"]);
  assert.equal(here.code, 0, here.stderr);
  assert.equal(JSON.parse(here.stdout).owner, null, "--no-owner opens the store here");
  assert.equal(await readOwnerRecord(owned.store), undefined, "and starts no owner");
  assert.equal((await owned.cairn(["stop"])).stdout.trim(), "no owner runs for this store");
});

Deno.test("index returns before the vectors are in; searches answer meanwhile and say what is missing; --wait waits", async () => {
  await using tmp = await tempDir();
  await using embeddings = bagOfWordsServer(HELD);
  await using owned = await servedStore(tmp.path, embeddings.url);
  const repo = await repository(tmp.path);

  const indexed = await owned.cairn(["index", repo]);
  assert.equal(indexed.code, 0, indexed.stderr);
  assert.match(indexed.stdout, /3 files indexed/);
  assert.match(indexed.stdout, /vectors: 3 code chunks of ledger still to compute/);

  const words = await owned.cairn(["search-text", `audit_${HELD}`]);
  assert.equal(words.code, 0, words.stderr);
  assert.match(words.stdout, /audit\.py/);
  const meaning = await owned.cairn(["recall", "the audit of the ledger"]);
  assert.equal(meaning.code, 0, meaning.stderr);
  assert.match(meaning.stdout, /audit\.py/, "found by words while its vector waits");
  assert.match(
    meaning.stdout,
    /semantic search is catching up: 3 code chunks of ledger have no vector yet/,
  );
  const before = await owned.status();
  assert.equal(waiting(before), 3);
  assert.equal(before.code.chunks, 3);

  embeddings.release();
  const waited = await owned.cairn(["index", repo, "--wait"]);
  assert.equal(waited.code, 0, waited.stderr);
  assert.match(waited.stdout, /0 files indexed, 3 unchanged/);
  assert.doesNotMatch(waited.stdout, /still to compute/);
  const after = await owned.status();
  assert.equal(waiting(after), 0);
  assert.equal(after.vectors.held.code, 3);
});

Deno.test("Ctrl-C on a command the owner runs says the owner finishes it, and the owner does", async () => {
  await using tmp = await tempDir();
  await using embeddings = bagOfWordsServer(HELD);
  await using owned = await ownedStore(tmp.path, embeddings.url);
  const repo = await repository(tmp.path);
  const indexing = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, "--store", owned.store, "index", repo, "--wait"],
    env: { CAIRN_NO_OWNER: "" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // The owner embeds the (held) chunks while the command line waits for them.
  await embeddings.held;
  indexing.kill("SIGINT");
  const { code, stderr } = await indexing.output();
  assert.equal(code, 130);
  assert.match(
    new TextDecoder().decode(stderr),
    /cairn: stopped waiting for `cairn index .* --wait`; the store's owner finishes it on its own/,
  );
  embeddings.release();
  const waited = await owned.cairn(["index", repo, "--wait"]);
  assert.equal(waited.code, 0, waited.stderr);
  assert.match(waited.stdout, /0 files indexed, 3 unchanged/, "the owner had indexed them");
  assert.equal(waiting(await owned.status()), 0);
});

Deno.test("cairn stop says what it waits for while the owner finishes a command it runs", async () => {
  await using tmp = await tempDir();
  await using embeddings = bagOfWordsServer(HELD);
  await using owned = await ownedStore(tmp.path, embeddings.url);
  assert.equal((await owned.cairn(["remember", "The ledger closes at midnight"])).code, 0);
  // Its check for a duplicate waits on the (held) model: the command runs in the owner meanwhile.
  const remembering = owned.cairn(["remember", `The ${HELD} audit runs on Fridays`]);
  await embeddings.held;
  const stop = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, "--store", owned.store, "stop"],
    env: { CAIRN_NO_OWNER: "" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // The model answers once stop has said what it waits for.
  let said = "";
  for await (const text of stop.stderr.pipeThrough(new TextDecoderStream())) {
    said += text;
    if (said.includes("\n")) break;
  }
  embeddings.release();
  const { code, stdout } = await stop.output();
  assert.equal(code, 0, said);
  assert.match(said, /waiting for the owner \(pid \d+\) to finish the commands it runs/);
  assert.match(new TextDecoder().decode(stdout), /stopped the store's owner/);
  assert.equal((await remembering).code, 0, "the command under way finished");
});

Deno.test("an owner killed while computing vectors is restarted by the next command, which resumes them; nothing acknowledged is lost", async () => {
  await using tmp = await tempDir();
  await using embeddings = bagOfWordsServer(HELD);
  await using owned = await ownedStore(tmp.path, embeddings.url);
  const repo = await repository(tmp.path);
  assert.equal((await owned.cairn(["index", repo])).code, 0);
  const remembered = await owned.cairn(["remember", "The ledger closes at midnight UTC"]);
  assert.equal(remembered.code, 0, remembered.stderr);
  const first = (await readOwnerRecord(owned.store))!.pid;

  Deno.kill(first, "SIGKILL");
  await exited(first);
  const status = await owned.status();
  assert.notEqual(status.owner.pid, first, "a new owner answered");
  assert.equal(status.memories, 1);
  assert.equal(status.code.chunks, 3);
  assert.equal(waiting(status), 4, "the chunks, and the memory after them, wait for vectors");

  embeddings.release();
  const waited = await owned.cairn(["index", repo, "--wait"]);
  assert.equal(waited.code, 0, waited.stderr);
  const done = await owned.status();
  assert.equal(waiting(done), 0);
  assert.deepEqual(done.vectors.held, { memory: 1, code: 3, turn: 0, entity: 0 });
  const recalled = await owned.cairn(["recall", "when does the ledger close?"]);
  assert.match(recalled.stdout, /closes at midnight UTC/);
});

Deno.test("one owner, two callers: `index .` indexes each caller's own folder", async () => {
  await using tmp = await tempDir();
  await using embeddings = bagOfWordsServer();
  await using owned = await servedStore(tmp.path, embeddings.url);
  const ledger = await repository(tmp.path, "ledger");
  const billing = await repository(tmp.path, "billing");

  const fromLedger = await owned.cairn(["index", "."], ledger);
  assert.equal(fromLedger.code, 0, fromLedger.stderr);
  const fromBilling = await owned.cairn(["index", "."], billing);
  assert.equal(fromBilling.code, 0, fromBilling.stderr);
  assert.doesNotMatch(fromBilling.stderr, /starting/, "the second went to the same owner");

  const projects = await owned.cairn(["projects", "--json"]);
  assert.equal(projects.code, 0, projects.stderr);
  const roots = Object.fromEntries(
    JSON.parse(projects.stdout).projects.map((p: { project: string; root: string }) => [
      p.project,
      p.root,
    ]),
  );
  assert.deepEqual(roots, { billing, ledger });
});

Deno.test("an owner that cannot open the store is started once: the command fails at once with its reason, no stack trace", async () => {
  await using tmp = await tempDir();
  const store = await misconfiguredStore(tmp.path);

  const listed = await cli(["--store", store, "list"], { CAIRN_NO_OWNER: "" });
  assert.equal(listed.code, 1, listed.stderr);
  assert.match(listed.stderr, /config\.json: unknown key "embeder"/);
  assert.equal(listed.stderr.match(/starting the store's owner/g)?.length, 1, listed.stderr);
  assert.doesNotMatch(listed.stderr, /Uncaught|\n\s+at /);
  assert.match(await Deno.readTextFile(join(store, "serve.log")), /unknown key "embeder"/);
});

Deno.test("an owner alive but silent past CAIRN_OWNER_START_SECONDS: the command says so and where its log is, no stack trace", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  await Deno.mkdir(store);
  // A config.json that is a pipe: the owner started for the store waits on it without end.
  const config = join(store, "config.json");
  const made = await new Deno.Command("mkfifo", { args: [config] }).output();
  assert.ok(made.success, new TextDecoder().decode(made.stderr));

  const listed = await cli(["--store", store, "list"], {
    CAIRN_NO_OWNER: "",
    CAIRN_OWNER_START_SECONDS: "2",
  });
  // What the pipe gives now ends the owner: a config.json it cannot read.
  await Deno.writeTextFile(config, "{");
  assert.equal(listed.code, 1, listed.stderr);
  assert.match(
    listed.stderr,
    /^cairn list: the store's owner \(cairn serve\) did not answer within 2 s; see .*serve\.log/m,
  );
  assert.doesNotMatch(listed.stderr, /Uncaught|\n\s+at /);
  assert.equal(listed.stderr.match(/starting the store's owner/g)?.length, 1, listed.stderr);
  // The owner is gone once it has logged why (it keeps no owner record).
  const log = join(store, "serve.log");
  while (!/config\.json/.test(await Deno.readTextFile(log).catch(() => ""))) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(await readOwnerRecord(store), undefined, "no owner runs");
});

Deno.test("what the store says as its owner opens it (a damaged projection rebuilt) is in serve.log", async () => {
  await using tmp = await tempDir();
  await using embeddings = bagOfWordsServer();
  await using owned = await ownedStore(tmp.path, embeddings.url);
  assert.equal((await owned.cairn(["remember", "Deploys go out on Tuesdays"])).code, 0);
  assert.equal((await owned.cairn(["stop"])).code, 0);
  await Deno.remove(join(owned.store, "projections", "graph", "graph.kuzu"));
  const listed = await owned.cairn(["list"]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /Deploys go out on Tuesdays/);
  assert.match(
    await Deno.readTextFile(join(owned.store, "serve.log")),
    /cairn: the graph projection .*; rebuilding it from the log/,
  );
});

Deno.test("a store another process holds: the owner started for it exits, and the command names the holder", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  await Deno.mkdir(store);
  const lock = await StoreLock.acquire(store, 0);
  try {
    const env = { CAIRN_NO_OWNER: "", CAIRN_LOCK_WAIT_SECONDS: "1" };
    const remembered = await cli(["--store", store, "remember", "Deploys go out on Tuesday"], env);
    assert.equal(remembered.code, 1, remembered.stderr);
    assert.match(remembered.stderr, new RegExp(`is in use by process ${Deno.pid}`));
    assert.equal(remembered.stderr.match(/starting the store's owner/g)?.length, 1);
    assert.equal(await readOwnerRecord(store), undefined, "no owner runs");
  } finally {
    await lock.release();
  }
});

Deno.test("a store another cairn command holds to itself: no owner is started, and commands and status name that command", async () => {
  await using tmp = await tempDir();
  await using embeddings = bagOfWordsServer(HELD);
  const store = await bagOfWordsStore(tmp.path, embeddings.url);
  const env = { CAIRN_NO_OWNER: "", CAIRN_LOCK_WAIT_SECONDS: "1" };
  // Its check for a duplicate waits on the (held) model, with the store held meanwhile.
  const holding = cli(["--store", store, "--no-owner", "remember", `The ${HELD} audit runs`], env);
  await embeddings.held;
  const holder = new RegExp(
    `process \\d+ \\(\`cairn --store ${store} --no-owner remember The ${HELD} audit runs\`\\)`,
  );
  try {
    const remembered = await cli(["--store", store, "remember", "Deploys go out on Tuesday"], env);
    assert.equal(remembered.code, 1, remembered.stderr);
    assert.match(remembered.stderr, new RegExp(`is in use by ${holder.source}; stop it or wait`));
    assert.doesNotMatch(remembered.stderr, /starting the store's owner/);
    const status = await cli(["--store", store, "status"], env);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, new RegExp(`owner +${holder.source} holds the store; ask again`));
    assert.doesNotMatch(status.stderr, /starting the store's owner/);
    const json = JSON.parse((await cli(["--store", store, "status", "--json"], env)).stdout);
    assert.match(json.lockedFor, /^cairn --store .* --no-owner remember /);
    // An MCP client's relay waits for the store rather than start owners that cannot open it.
    const said: string[] = [];
    await assert.rejects(
      startedOwner(store, { log: (line) => said.push(line), timeoutMs: 300 }),
      new RegExp(`could not start within 0.3 s: ${holder.source} holds the store to itself`),
    );
    assert.deepEqual(said, []);
    assert.equal(await readOwnerRecord(store), undefined, "no owner runs");
  } finally {
    embeddings.release();
  }
  const held = await holding;
  assert.equal(held.code, 0, held.stderr);
});

Deno.test("a relative --store starts in the folder the command was typed in, under deno task too", async () => {
  await using tmp = await tempDir();
  const checkout = dirname(fileURLToPath(new URL("../../main.ts", import.meta.url)));
  const typed = await cli(["--store", "notes", "remember", "typed here"], {}, { cwd: tmp.path });
  assert.equal(typed.code, 0, typed.stderr);
  const task = await cli(["--store", "notes", "remember", "from a task"], { INIT_CWD: tmp.path }, {
    cwd: checkout,
  });
  assert.equal(task.code, 0, task.stderr);
  const listed = await cli(["--store", join(tmp.path, "notes"), "list"]);
  assert.match(listed.stdout, /typed here/);
  assert.match(listed.stdout, /from a task/);
  await assert.rejects(Deno.stat(join(checkout, "notes")), Deno.errors.NotFound);
});

Deno.test("a lone - reads standard input through the owner: import - takes the file, recall - the question", async () => {
  await using tmp = await tempDir();
  await using embeddings = bagOfWordsServer();
  await using owned = await ownedStore(tmp.path, embeddings.url);
  const store = owned.store;
  const env = { CAIRN_NO_OWNER: "" };
  const line = JSON.stringify({ id: "m1", content: "Deploys go out on Tuesday afternoons" });
  const imported = await cli(["--store", store, "import", "-"], env, { stdin: `${line}\n` });
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /imported 1 memories/);
  assert.ok(await readOwnerRecord(store), "the owner ran it");
  const question = "Traceback (most recent call last):\n  deploy.py: when do deploys go out?\n";
  const answered = await cli(["--store", store, "recall", "-", "--limit", "1"], env, {
    stdin: question,
  });
  assert.equal(answered.code, 0, answered.stderr);
  assert.match(answered.stdout, /Tuesday afternoons/);
});
