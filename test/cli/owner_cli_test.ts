import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { cliHere } from "./in_process.ts";
import { readOwnerRecord, readToken } from "../../src/mcp/owner_file.ts";
import { serveHere } from "../mcp/serve_here.ts";
import { prompt, SESSION, tool } from "../service/claude_lines.ts";
import { watchHere } from "./watch_here.ts";

Deno.test("while cairn serve owns the store, CLI commands run in it, from the caller's folder", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const work = join(tmp.path, "work");
  await Deno.mkdir(join(work, "app", "src"), { recursive: true });
  await Deno.writeTextFile(
    join(work, "app", "src", "billing.py"),
    "def charge_card(amount):\n    return gateway.charge(amount)\n",
  );
  await Deno.writeTextFile(
    join(work, "memories.jsonl"),
    JSON.stringify({ id: "m1", content: "Invoices are sent on the first of the month." }) + "\n",
  );
  await using _serve = await serveHere(store);
  const cairn = (args: string[], stdin?: string) =>
    cliHere(["--store", store, ...args], {
      env: { CAIRN_ALLOWED_ROOTS: tmp.path },
      cwd: work,
      ...(stdin === undefined ? {} : { stdin }),
    });

  const remembered = await cairn(["remember", "The payment gateway retries a card three times."]);
  assert.equal(remembered.code, 0, remembered.stderr);
  const imported = await cairn(["import", "memories.jsonl"]);
  assert.equal(imported.code, 0, imported.stderr);
  const indexed = await cairn(["index", "app", "--project", "app", "--no-wait"]);
  assert.equal(indexed.code, 0, indexed.stderr);
  assert.match(indexed.stdout, /1 files? indexed|indexed 1/);

  const recalled = await cairn(["recall", "how often is a card retried?", "--include", "memories"]);
  assert.equal(recalled.code, 0, recalled.stderr);
  assert.match(recalled.stdout, /retries a card three times/);
  const code = await cairn(["search-code", "charge_card", "--project", "app"]);
  assert.match(code.stdout, /src\/billing\.py/);

  const transcript = join(tmp.path, "session.jsonl");
  await Deno.writeTextFile(
    transcript,
    JSON.stringify({
      type: "user",
      sessionId: "s-hook",
      cwd: join(work, "app"),
      timestamp: "2026-02-01T10:00:00.000Z",
      message: { role: "user", content: "Why does billing retry?" },
    }) + "\n",
  );
  const hook = await cairn(
    ["ingest", "claude", "--hook", "--no-wait"],
    JSON.stringify({ transcript_path: transcript, hook_event_name: "Stop" }),
  );
  assert.equal(hook.code, 0, hook.stderr);
  assert.match(hook.stdout, /1 new/);

  const entities = await cairn(
    ["graph", "add-entity", "--file", "-"],
    JSON.stringify([{ name: "billing", entityType: "service", observations: ["charges cards"] }]),
  );
  assert.equal(entities.code, 0, entities.stderr);
  assert.match(
    (await cairn(["graph", "open", "billing"])).stdout,
    /billing \(service\): charges cards/,
  );

  const bad = await cairn(["recall"]);
  assert.equal(bad.code, 2, "a usage error keeps its exit code through the owner");
  assert.match(bad.stderr, /give the question to search for/);
  // A question past the limit is told by recall's own words, not by the relay's.
  const long = await cairn(["recall", "b ".repeat(40_000)]);
  assert.equal(long.code, 2, long.stderr);
  assert.match(long.stderr, /the query has 7999\d characters; the limit is 65536/);

  const post = async (body: unknown) => {
    const response = await fetch(`http://127.0.0.1:${(await readOwnerRecord(store))!.port}/cli`, {
      method: "POST",
      headers: { authorization: `Bearer ${await readToken(store)}` },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text };
  };
  const exclusive = await post({ args: ["compact"], cwd: work, roots: [work] });
  const lines = exclusive.text.trim().split("\n").map((line) => JSON.parse(line));
  assert.match(lines[0].err, /compact needs the store to itself/);
  assert.deepEqual(lines.at(-1), { code: 1 }, "a line of its own, last, says the exit code");
  const malformed = await post({ args: [], cwd: work });
  assert.equal(malformed.status, 400);
  assert.match(JSON.parse(malformed.text).error, /bad command request/);

  // A command that needs the store to itself asks the owner to step aside, then runs.
  const owner = (await readOwnerRecord(store))!.pid;
  const replay = await cliHere(["--store", store, "replay"]);
  assert.equal(replay.code, 0, replay.stderr);
  assert.match(replay.stderr, new RegExp(`the store's owner \\(pid ${owner}\\) steps aside`));
  assert.match(replay.stdout, /replayed/);
  assert.equal(await readOwnerRecord(store), undefined, "the owner is gone");
  assert.match((await cairn(["list"])).stdout, /Invoices are sent/, "and the store answers");
});

Deno.test("cairn ingest claude --watch sends each batch to the running owner, and opens the store itself once it is gone", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const projects = join(tmp.path, "projects");
  await Deno.mkdir(projects);
  const env = { CAIRN_ALLOWED_ROOTS: tmp.path };
  const serve = await serveHere(store);
  try {
    await using watcher = watchHere(
      ["--store", store, "ingest", "claude", projects, "--watch", "--no-wait"],
      env,
    );
    await watcher.waitFor(/watching/);
    const path = join(projects, `${SESSION}.jsonl`);
    const cwd = "/home/dev/shop";
    await Deno.writeTextFile(
      path,
      prompt("Why is checkout slow?", cwd, 0) +
        tool("Read", { file_path: `${cwd}/src/cart.ts` }, cwd, 1),
    );
    await watcher.waitFor(/watching[\s\S]*1 turn read, 1 new/);
    const history = await cliHere(["--store", store, "history", "cart.ts"], { env });
    assert.match(
      history.stdout,
      /session 5e55a0b1:\d+ \(Read src\/cart\.ts\): User: Why is checkout slow/,
    );

    await serve[Symbol.asyncDispose]();
    await Deno.writeTextFile(path, prompt("Now add a test", cwd, 2), { append: true });
    await watcher.waitFor(/1 new, 1 replaced/);
    const stopped = await watcher.stop("SIGTERM");
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.doesNotMatch(stopped.stderr, /in use by process/);
    assert.match(stopped.stdout, /stopped watching/);
  } finally {
    await serve[Symbol.asyncDispose]();
  }
});

Deno.test("cairn index --watch beside a running owner re-indexes through it, the project's name kept", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const repo = join(tmp.path, "repo");
  await Deno.mkdir(join(repo, "src"), { recursive: true });
  await Deno.writeTextFile(join(repo, "src", "billing.py"), "def charge_card(amount):\n    pass\n");
  await using _serve = await serveHere(store);
  await using watcher = watchHere(
    ["--store", store, "index", repo, "--project", "shop", "--watch", "--no-wait"],
  );
  await watcher.waitFor(/indexed project shop .*1 files indexed[\s\S]*watching/);
  await Deno.writeTextFile(
    join(repo, "src", "refunds.py"),
    "def refund_order(order):\n    return order.total\n",
  );
  await watcher.waitFor(/watching[\s\S]*indexed project shop .*1 files indexed, 1 unchanged/);
  const found = await cliHere([
    "--store",
    store,
    "search-code",
    "refund_order",
    "--project",
    "shop",
  ]);
  assert.equal(found.code, 0, found.stderr);
  assert.match(found.stdout, /src\/refunds\.py/);
  const stopped = await watcher.stop("SIGTERM");
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.doesNotMatch(stopped.stderr, /in use by process/);
  assert.match(stopped.stdout, /stopped watching/);
});
