import assert from "node:assert/strict";
import { join } from "node:path";
import { MAIN, tempDir } from "../helpers.ts";
import { cliHere } from "./in_process.ts";
import { runCli } from "../../src/cli/main.ts";
import { openCairn } from "../../src/service/cairn.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";
import { lagWithin, waitingCount } from "../../src/recall/vector_lag.ts";

const HOOKS = `class Request:
    """An HTTP request."""

    def register_hook(self, event, hook):
        """Registers a callback that runs when the event fires."""
        self.hooks[event].append(hook)

    def prepare_body(self, data):
        """Encodes the payload as form data or JSON."""
        return encode(data)
`;

const RETRY = `export function exponentialBackoff(attempt: number): number {
  // wait twice as long after each failed attempt, with jitter
  return Math.min(30_000, 2 ** attempt * 100 + Math.random() * 100);
}
`;

Deno.test("cairn index makes a repository's functions findable by recall, and says what it did", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "shop");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  await Deno.mkdir(join(repo, "src"));
  await Deno.writeTextFile(join(repo, "src", "hooks.py"), HOOKS);
  await Deno.writeTextFile(join(repo, "src", "retry.ts"), RETRY);
  await Deno.writeTextFile(join(repo, ".env"), "TOKEN=secret\n");
  const store = ["--store", join(tmp.path, "store")];

  const indexed = await cliHere([...store, "index", join(repo, "src")]);
  assert.equal(indexed.code, 0, indexed.stderr);
  assert.match(indexed.stdout, /indexed project shop \(.*shop\): 2 files indexed, 0 unchanged/);

  const recalled = await cliHere([
    ...store,
    "recall",
    "register a callback hook",
    "--include",
    "code",
  ]);
  assert.equal(recalled.code, 0, recalled.stderr);
  assert.match(recalled.stdout, /src\/hooks\.py:4-6\] `Request\.register_hook`/);

  const typescriptOnly = await cliHere([
    ...store,
    "recall",
    "register a callback hook",
    "--include",
    "code",
    "--language",
    "typescript",
  ]);
  assert.equal(typescriptOnly.code, 0, typescriptOnly.stderr);
  assert.match(typescriptOnly.stdout, /src\/retry\.ts/);
  assert.doesNotMatch(typescriptOnly.stdout, /hooks\.py/, "--language keeps code of that language");
  const misspelt = await cliHere([...store, "recall", "hook", "--language", "pyhton"]);
  assert.notEqual(misspelt.code, 0);
  assert.match(misspelt.stderr, /language is one of typescript, .*python.*, not "pyhton"/);
  const underSrc = await cliHere([
    ...store,
    "search-code",
    "register a callback hook",
    "--path",
    "src",
  ]);
  assert.match(underSrc.stdout, /src\/hooks\.py:4-6\] `Request\.register_hook`/);
  const underDocs = await cliHere([
    ...store,
    "search-code",
    "register a callback hook",
    "--path",
    "docs/",
  ]);
  assert.doesNotMatch(underDocs.stdout, /hooks\.py/, "--path keeps code under that folder");
  const outside = await cliHere([...store, "search-code", "hook", "--path", "../other"]);
  assert.notEqual(outside.code, 0);
  assert.match(outside.stderr, /must be relative to the project's root and stay inside it/);

  const again = await cliHere([...store, "index", repo]);
  assert.match(again.stdout, /0 files indexed, 2 unchanged, 0 removed, 1 skipped/);
  assert.match(again.stdout, /skipped: may hold secrets \(1\)/);

  // Waiting is for the project indexed: another project's vectors, left for the next open, are not waited for.
  const other = join(tmp.path, "other");
  await Deno.mkdir(other);
  for (let i = 0; i < 40; i++) {
    await Deno.writeTextFile(
      join(other, `m${i}.py`),
      `def handler_${i}(event):\n    return ${i}\n`,
    );
  }
  const pending = await cliHere([...store, "index", other, "--no-wait"]);
  assert.match(pending.stdout, /vectors: 40 code chunks of other left for the next command/);
  const waited = await cliHere([...store, "index", repo]);
  assert.doesNotMatch(waited.stdout, /vectors: \d+ computed/, waited.stdout);
  assert.equal((await cliHere([...store, "delete-project", "other"])).code, 0);

  const status = await cliHere([...store, "index", "--status", "shop"]);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /2 files, 4 chunks/);
  assert.match(status.stdout, /\.env: may hold secrets/);
  const same = await cliHere([...store, "status", "shop"]);
  assert.equal(same.stdout, status.stdout, "cairn status PROJECT shows the project's index");
  const deleted = await cliHere([...store, "delete-project", "shop"]);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match((await cliHere([...store, "status", "shop"])).stderr, /no project named shop/);
  assert.match(
    (await cliHere([...store, "delete-project", "shop"])).stderr,
    /no project named shop is indexed/,
  );
  assert.equal(
    (await cliHere([...store, "index", repo])).code,
    0,
    "a deleted project can be indexed again",
  );
  const unknown = await cliHere([...store, "status", "nope"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no project named nope/);

  const notDir = await cliHere([...store, "index", join(repo, "src", "retry.ts")]);
  assert.equal(notDir.code, 1);
  assert.match(notDir.stderr, /retry\.ts is not a folder/);
});

Deno.test("cairn index --watch re-indexes a changed file and stops cleanly on SIGTERM, leaving the store to the next command", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  await Deno.mkdir(repo);
  await Deno.writeTextFile(join(repo, "hooks.py"), HOOKS);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--quiet",
      MAIN,
      "--store",
      join(tmp.path, "store"),
      "index",
      repo,
      "--watch",
    ],
    env: { CAIRN_NO_OWNER: "1" },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  // Bounded: a watcher that never prints what is awaited fails the test instead of hanging it.
  const deadline = setTimeout(() => lines.cancel(), 60_000);
  let seen = "";
  const waitFor = async (pattern: RegExp) => {
    while (!pattern.test(seen)) {
      const { value, done } = await lines.read();
      if (done) assert.fail(`the watcher ended before printing ${pattern}: ${seen}`);
      seen += value;
    }
  };
  try {
    await waitFor(/watching .*repo for changes/);
    await Deno.writeTextFile(join(repo, "retry.ts"), RETRY);
    await waitFor(/1 files indexed, 1 unchanged/);
  } finally {
    clearTimeout(deadline);
    child.kill("SIGTERM");
    await waitFor(/stopped watching/).catch(() => {});
    await lines.cancel();
    assert.equal((await child.status).code, 0);
  }
  const status = await cliHere(["--store", join(tmp.path, "store"), "index", "--status", "--json"]);
  assert.equal(status.code, 0, status.stderr);
  assert.equal(JSON.parse(status.stdout)[0].files, 2);
});

Deno.test("`deno task cairn index .` from another folder indexes that folder, not cairn's checkout", async () => {
  await using tmp = await tempDir();
  const folder = join(tmp.path, "elsewhere");
  await Deno.mkdir(folder);
  await Deno.writeTextFile(join(folder, "tool.py"), "def from_elsewhere():\n    return 1\n");
  const config = new URL("../../deno.json", import.meta.url).pathname;
  // As from a shell: no INIT_CWD of an outer task (`deno task test` sets one, and tasks keep it).
  const env: Record<string, string> = { ...Deno.env.toObject(), CAIRN_NO_OWNER: "1" };
  delete env.INIT_CWD;
  const run = await new Deno.Command(Deno.execPath(), {
    args: [
      "task",
      "--quiet",
      "--config",
      config,
      "cairn",
      "--store",
      join(tmp.path, "store"),
      "index",
      ".",
    ],
    cwd: folder,
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(run.stdout);
  assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
  assert.match(out, new RegExp(`indexed project elsewhere \\(${folder}\\): 1 files indexed`));
});

/** An embedder whose documents wait until {@linkcode HeldEmbedder.release}: vectors that take long. */
class HeldEmbedder extends FakeEmbedder {
  readonly #held = Promise.withResolvers<void>();
  release(): void {
    this.#held.resolve();
  }
  override async embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    await this.#held.promise;
    return await super.embedDocuments(texts);
  }
}

Deno.test("an owner that stops ends an index run's wait for its vectors, and says what is left", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  await Deno.mkdir(repo);
  await Deno.writeTextFile(join(repo, "a.py"), "def waits():\n    return 1\n");
  const embedder = new HeldEmbedder();
  const owner = await openCairn(join(tmp.path, "store"), { embedder });
  try {
    const err: string[] = [];
    const run = runCli(
      ["index", repo, "--wait"],
      { out: () => {}, err: (line) => err.push(line) },
      {
        inOwner: { owner, cwd: tmp.path, roots: [] },
      },
    );
    // Once the file's chunks wait for their vectors, the run is past its files: it waits.
    while (waitingCount(lagWithin(await owner.vectorLag(), ["code"], "repo")) === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    owner.store.interruptWork();
    assert.equal(await run, 1);
    assert.match(
      err.join("\n"),
      /the store's owner is stopping with 1 vector of repo still to compute: the next owner computes them/,
    );
  } finally {
    embedder.release();
    await owner.close();
  }
});
