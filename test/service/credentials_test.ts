import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { UserError } from "../../src/errors.ts";
import { openWithFakeModel as open } from "./fake_cairn.ts";
import { cli, filesHolding, tempDir } from "../helpers.ts";

/** Files where credentials live, each holding a canary that must never reach the store. */
const CREDENTIAL_FILES = [
  ".git-credentials",
  ".bash_history",
  ".zsh_history",
  ".python_history",
  ".docker/config.json",
  ".kube/config",
  ".config/gh/hosts.yml",
  ".terraform.d/credentials.tfrc.json",
  ".gnupg/pubring.kbx.txt",
  ".ssh/config",
  ".aws/config",
  ".netrc",
  ".npmrc",
  ".pypirc",
  "etc/shadow",
  "infra/terraform.tfstate",
  ".config/gcloud/application_default_credentials.json",
];

Deno.test("credentials are never indexed: known files by name and place, secrets inside code redacted", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  for (const [i, path] of CREDENTIAL_FILES.entries()) {
    await Deno.mkdir(dirname(join(repo, path)), { recursive: true });
    await Deno.writeTextFile(join(repo, path), `canary${i}zebra secret material\n`);
  }
  const key = "AKIA" + "QWERTYUIOPASDFGH";
  const token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
  await Deno.writeTextFile(
    join(repo, "settings.py"),
    `AWS_ACCESS_KEY_ID = "${key}"\ngithub_token = "${token}"\n\ndef connect():\n    return boto3.client("s3")\n`,
  );
  const store = join(tmp.path, "store");
  const cairn = await open(store);
  try {
    const report = await cairn.code.index({ path: repo, project: "repo" });
    await cairn.store.runner.settled();
    assert.equal(report.indexed, 1, JSON.stringify(report.skipped));
    for (const [i] of CREDENTIAL_FILES.entries()) {
      assert.deepEqual(await filesHolding(store, `canary${i}zebra`), [], CREDENTIAL_FILES[i]);
    }
    assert.deepEqual(await filesHolding(store, key), []);
    assert.deepEqual(await filesHolding(store, token), []);
    const found = cairn.text.search("boto3 client connect", { sources: ["code"], limit: 5 });
    assert.equal(found.length, 1, "the code around the secrets is indexed");
  } finally {
    await cairn.close();
  }
});

Deno.test("the home folder and the file system's root are refused as projects", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  await Deno.mkdir(home);
  // The home comes from HOME: a child's, since tests running beside this one share this
  // process's environment. A refusal the user can act on, not an internal error.
  const refused = await cli(["--store", join(tmp.path, "cli-store"), "index", home], {
    HOME: home,
  });
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /is your home folder: .*give a project's folder inside it/);
  assert.doesNotMatch(refused.stderr, /CAIRN_DEBUG/);
  const cairn = await open(join(tmp.path, "store"));
  try {
    await assert.rejects(() => cairn.code.index({ path: "/" }), (error: unknown) => {
      assert.ok(error instanceof UserError);
      assert.match(error.message, /root of the file system/);
      return true;
    });
  } finally {
    await cairn.close();
  }
});

Deno.test("deleting a project takes its code out of the log and the blobs, not only the index", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  await Deno.mkdir(repo);
  await Deno.writeTextFile(join(repo, "pay.py"), "def charge_quokka(amount):\n    return amount\n");
  const store = join(tmp.path, "store");
  const cairn = await open(store);
  try {
    await cairn.code.index({ path: repo, project: "repo" });
    await cairn.memories.remember({ content: "Payments go through charge_quokka" });
    await cairn.store.runner.settled();
    assert.ok((await filesHolding(join(store, "blobs"), "def charge_quokka")).length > 0);
    await cairn.code.deleteProject("repo");
    await cairn.store.runner.settled();
    assert.deepEqual(await filesHolding(join(store, "blobs"), "def charge_quokka"), []);
    const left = (await Array.fromAsync(cairn.store.log.read())).map((event) => event.type);
    assert.ok(!left.includes("file.indexed"), left.join(", "));
    assert.equal(cairn.text.search("charge_quokka", { sources: ["memory"], limit: 5 }).length, 1);
  } finally {
    await cairn.close();
  }
});
