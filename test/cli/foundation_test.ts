import assert from "node:assert/strict";
import { join } from "node:path";
import { FileLog } from "../../events/file_log.ts";
import { StoreLock } from "../../events/lock.ts";
import { encodeRecord } from "../../events/record.ts";
import { readManifest } from "../../events/manifest.ts";
import { cli, MAIN, remembered, tempDir } from "../helpers.ts";
import { cliHere } from "./in_process.ts";

Deno.test("cairn --help lists the commands; an unknown command exits 2 with the usage", async () => {
  const help = await cliHere(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /usage: cairn \[--store DIR\] \[--no-owner\] <command>/);
  assert.match(help.stdout, /status/);
  const unknown = await cliHere(["frobnicate"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
  const commandHelp = await cliHere(["verify", "--help"]);
  assert.match(commandHelp.stdout, /usage: cairn verify \[--repair\]/);
  const badOption = await cliHere(["status", "--bogus"]);
  assert.equal(badOption.code, 2);
  assert.match(badOption.stderr, /usage: cairn status/);
});

Deno.test("cairn status shows the store from $CAIRN_HOME, its log and head", async () => {
  await using tmp = await tempDir();
  const log = await FileLog.open(join(tmp.path, "log"));
  await log.append([remembered("a"), remembered("b")]);
  await log.close();
  const result = await cli(["status", "--json"], { CAIRN_HOME: tmp.path });
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.equal(report.store, tmp.path);
  assert.equal(report.head, 2);
  assert.ok(report.logBytes > 0);
});

Deno.test("a second writer waits for the first, then gets an error naming the owner's pid; status still answers", async () => {
  await using tmp = await tempDir();
  let lock = await StoreLock.acquire(tmp.path);
  const writer = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--quiet",
      MAIN,
      "--store",
      tmp.path,
      "remember",
      "after the wait",
    ],
    env: { CAIRN_NO_OWNER: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Let go once the command waits for the lock: it goes on.
  await opened(writer.pid, await Deno.realPath(join(tmp.path, "LOCK")));
  await lock.release();
  const waited = await writer.output();
  assert.equal(waited.code, 0, new TextDecoder().decode(waited.stderr));
  lock = await StoreLock.acquire(tmp.path);
  try {
    const replay = await cli(["--store", tmp.path, "replay"], { CAIRN_LOCK_WAIT_SECONDS: "0.2" });
    assert.equal(replay.code, 1);
    assert.match(replay.stderr, new RegExp(`in use by process ${Deno.pid}`));
    const status = await cli(["--store", tmp.path, "status"]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, new RegExp(`owner +process ${Deno.pid}`));
  } finally {
    await lock.release();
  }
});

/** Resolves once process `pid` has the file `path` open (within 30 s, else the test fails). */
async function opened(pid: number, path: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    for await (const fd of Deno.readDir(`/proc/${pid}/fd`)) {
      const target = await Deno.readLink(`/proc/${pid}/fd/${fd.name}`).catch(() => "");
      if (target === path) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`process ${pid} did not open ${path} within 30 s`);
}

Deno.test("cairn verify finds a flipped byte, and --repair keeps every readable event", async () => {
  await using tmp = await tempDir();
  const logDir = join(tmp.path, "log");
  const log = await FileLog.open(logDir, { segmentBytes: 600 });
  for (let i = 0; i < 20; i++) await log.append([remembered(`m${i}`)]);
  await log.close();
  const clean = await cliHere(["--store", tmp.path, "verify"]);
  assert.equal(clean.code, 0);
  assert.match(clean.stdout, /ok: .* and so do the projections and the model$/m);
  // While another process holds the store, the projections are not checked, and the verdict says so.
  const lock = await StoreLock.acquire(tmp.path);
  try {
    const held = await cli(["--store", tmp.path, "verify"], { CAIRN_LOCK_WAIT_SECONDS: "0.2" });
    assert.equal(held.code, 0, held.stderr);
    assert.match(
      held.stdout,
      /^projections not checked: .*in use by process.*`cairn --store \S+ stop`/m,
    );
    assert.match(held.stdout, /ok: .*so does the model \(the projections were not checked\)$/m);
  } finally {
    await lock.release();
  }
  const segment = join(logDir, (await readManifest(logDir))!.segments[1]!.file);
  const bytes = await Deno.readFile(segment);
  bytes[40] = bytes[40]! ^ 0x55;
  await Deno.writeFile(segment, bytes);
  const broken = await cliHere(["--store", tmp.path, "status"]);
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /damaged at byte offset \d+/);
  assert.doesNotMatch(broken.stderr, /at .*\.ts:\d+/);
  const check = await cliHere(["--store", tmp.path, "verify"]);
  assert.equal(check.code, 1);
  assert.match(check.stdout, /problem: .*\.seg at byte \d+: checksum mismatch/);
  const repair = await cliHere(["--store", tmp.path, "verify", "--repair"]);
  assert.equal(repair.code, 0, repair.stderr);
  assert.match(repair.stdout, /repaired: kept 19 readable events \(head 20\)/);
  assert.match(repair.stdout, /lost: event \d+ \(unreadable\)/, "it says which event is gone");
  const after = await cliHere(["--store", tmp.path, "verify"]);
  assert.equal(after.code, 0, after.stdout);
});

Deno.test("cairn compact and replay run on a store", async () => {
  await using tmp = await tempDir();
  const log = await FileLog.open(join(tmp.path, "log"));
  await log.append([remembered("a"), remembered("secret"), {
    type: "memory.purged",
    v: 1,
    data: { id: "secret" },
  }]);
  await log.close();
  const compact = await cliHere(["--store", tmp.path, "compact"]);
  assert.equal(compact.code, 0, compact.stderr);
  assert.match(compact.stdout, /kept 1 events, dropped 2/);
  const segments = (await readManifest(join(tmp.path, "log")))!.segments;
  const text = new TextDecoder().decode(
    await Deno.readFile(join(tmp.path, "log", segments[0]!.file)),
  );
  assert.doesNotMatch(text, /content of secret/);
  const replay = await cliHere(["--store", tmp.path, "replay"]);
  assert.equal(replay.code, 0, replay.stderr);
  assert.match(replay.stdout, /replayed the log \(up to event 3\)/);
  const lexical = [...Deno.readDirSync(join(tmp.path, "projections", "text"))];
  assert.ok(lexical.some((entry) => entry.name.endsWith(".image")), "saved for the next search");
});

Deno.test("cairn status says when it cut a torn last record", async () => {
  await using tmp = await tempDir();
  const logDir = join(tmp.path, "log");
  const log = await FileLog.open(logDir);
  await log.append([remembered("a")]);
  await log.close();
  const segment = join(logDir, (await readManifest(logDir))!.segments[0]!.file);
  // A second write cut short by a crash, before it was acknowledged.
  const torn = encodeRecord(2, remembered("b"));
  await Deno.writeFile(segment, torn.subarray(0, torn.length - 3), { append: true });
  const status = await cliHere(["--store", tmp.path, "status", "--json"]);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stderr, /warning: the last record of log segment .* was torn/);
  assert.equal(JSON.parse(status.stdout).head, 1);
});
