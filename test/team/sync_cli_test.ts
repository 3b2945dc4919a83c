import assert from "node:assert/strict";
import { cli, tempDir } from "../helpers.ts";
import { watchProcess } from "../cli/watch_process.ts";
import { eventually, NatsServer, SKIP_REASON } from "./nats_server.ts";

const ignore = SKIP_REASON !== undefined;

async function teamStore(dir: string, member: string, url: string): Promise<void> {
  await Deno.writeTextFile(
    `${dir}/config.json`,
    JSON.stringify({ team: { servers: [url], projects: ["api"], member } }),
  );
}

Deno.test({
  name: "cairn sync: remember on one store, sync both, and the other recalls it",
  ignore,
  async fn() {
    await using server = await NatsServer.create();
    await using a = await tempDir();
    await using b = await tempDir();
    await teamStore(a.path, "alice", server.url);
    await teamStore(b.path, "bob", server.url);
    const stored = await cli([
      "--store",
      a.path,
      "remember",
      "Invoices are numbered per tenant, never globally",
      "--project",
      "api",
    ]);
    assert.equal(stored.code, 0, stored.stderr);
    const synced = await cli(["--store", a.path, "sync"]);
    assert.equal(synced.code, 0, synced.stderr);
    assert.match(synced.stdout, /synced as alice: published 1, took in 0 from others/);
    const taken = await cli(["--store", b.path, "sync", "--json"]);
    assert.equal(taken.code, 0, taken.stderr);
    assert.equal(JSON.parse(taken.stdout).applied, 1);
    const found = await cli([
      "--store",
      b.path,
      "search-text",
      "how are invoices numbered?",
      "--project",
      "api",
    ]);
    assert.match(found.stdout, /Invoices are numbered per tenant/);
  },
});

Deno.test({
  name: "cairn sync: without a team section, or with the server down, says what to do",
  ignore,
  async fn() {
    await using server = await NatsServer.create(false);
    await using a = await tempDir();
    const none = await cli(["--store", a.path, "sync"]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /has no "team" section; add one like/);
    await teamStore(a.path, "alice", server.url);
    await cli(["--store", a.path, "remember", "written offline", "--project", "api"]);
    const offline = await cli(["--store", a.path, "sync"]);
    assert.equal(offline.code, 1);
    assert.match(offline.stderr, /no NATS server of the team answers/);
    assert.match(offline.stderr, /1 event\(s\) wait to be published/);
  },
});

Deno.test({
  name: "cairn sync --watch: takes in what another member publishes until stopped",
  ignore,
  async fn() {
    await using server = await NatsServer.create();
    await using a = await tempDir();
    await using b = await tempDir();
    await teamStore(a.path, "alice", server.url);
    await teamStore(b.path, "bob", server.url);
    await using watcher = watchProcess(["--store", b.path, "sync", "--watch", "--interval", "0.2"]);
    await watcher.waitFor(/syncing every 0.2 s/);
    await cli([
      "--store",
      a.path,
      "remember",
      "Feature flags live in LaunchDarkly",
      "--project",
      "api",
    ]);
    await cli(["--store", a.path, "sync"]);
    await watcher.waitFor(/synced as bob: published 0, took in 1 from others/);
    const { code, stdout } = await watcher.stop("SIGINT");
    assert.equal(code, 0);
    assert.match(stdout, /stopped syncing/);
  },
});

Deno.test({
  name: "cairn serve: the store's owner syncs with the team in the background",
  ignore,
  async fn() {
    await using server = await NatsServer.create();
    await using a = await tempDir();
    await using b = await tempDir();
    await teamStore(a.path, "alice", server.url);
    await teamStore(b.path, "bob", server.url);
    const withOwner = { CAIRN_NO_OWNER: "" };
    try {
      // Bob's first command starts his store's owner, which then syncs on its own.
      assert.equal((await cli(["--store", b.path, "list"], withOwner)).code, 0);
      await cli(["--store", a.path, "remember", "The API rate limit is 100/s", "--project", "api"]);
      await cli(["--store", a.path, "sync"]);
      let listed = "";
      // The owner syncs every 2 s; on a loaded machine its start and first passes can be slow.
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && !listed.includes("rate limit")) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        listed = (await cli(["--store", b.path, "list", "--project", "api"], withOwner)).stdout;
      }
      assert.match(listed, /The API rate limit is 100\/s/);
      // The owner logs its pass once the pass is over, a moment after the memory can be listed.
      await eventually(async () =>
        assert.match(
          await Deno.readTextFile(`${b.path}/serve.log`),
          /team sync published 0, took in 1/,
        )
      );
    } finally {
      await cli(["--store", b.path, "stop"], withOwner);
    }
  },
});
