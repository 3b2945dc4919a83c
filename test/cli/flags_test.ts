import assert from "node:assert/strict";
import { join } from "node:path";
import { sendToOwner } from "../../src/cli/client.ts";
import { closest } from "../../text/did_you_mean.ts";
import { tempDir } from "../helpers.ts";
import { cairnInProcess, cliHere } from "./in_process.ts";
import { openCairn, PROJECTION_NAMES } from "../../src/service/cairn.ts";

Deno.test("closest() guesses the name meant: a typo, a swap, a prefix; nothing when far", () => {
  const commands = ["recall", "search", "search-text", "remember", "revise", "status", "stop"];
  assert.equal(closest("recal", commands), "recall");
  assert.equal(closest("serach", commands), "search");
  assert.equal(closest("rememb", commands), "remember");
  assert.equal(closest("stauts", commands), "status");
  assert.equal(closest("deploy", commands), undefined);
  assert.equal(closest("--jsn", ["--json", "--project"]), "--json");
});

Deno.test("a mistyped command or option is named with the one meant; a bad choice lists the good ones", async () => {
  await using tmp = await tempDir();
  const unknown = await cairnInProcess(tmp.path, "recal", "anything");
  assert.equal(unknown.code, 2);
  assert.equal(
    unknown.err,
    'cairn: unknown command "recal" (did you mean recall?); `cairn --help` lists them',
  );
  const option = await cairnInProcess(tmp.path, "list", "--jsn");
  assert.equal(option.code, 2);
  assert.match(option.err, /^cairn list: unknown option --jsn \(did you mean --json\?\)\nusage:/);
  const kind = await cairnInProcess(tmp.path, "remember", "a note", "--kind", "idea");
  assert.equal(kind.code, 2);
  assert.match(
    kind.err,
    /^cairn remember: --kind is one of decision, fact, pattern, preference, note or conversation, not "idea"\nusage: cairn remember TEXT/,
  );
  const dashed = await cairnInProcess(tmp.path, "list", "--limit", "-1");
  assert.equal(dashed.code, 2);
  assert.match(
    dashed.err,
    /^cairn list: --limit needs a value; one starting with a dash is written --limit=-…\n/,
  );
  const missing = await cairnInProcess(tmp.path, "list", "--limit");
  assert.equal(missing.code, 2);
  assert.match(missing.err, /^cairn list: --limit needs a value\nusage:/);
  const agent = await cairnInProcess(tmp.path, "ingest", "claud");
  assert.equal(agent.code, 2);
  assert.match(
    agent.err,
    /^cairn ingest: say whose transcripts to read: "claude" or "codex", not "claud" \(did you mean claude\?\)\n/,
  );
});

Deno.test("cairn's own options after the command are explained, and start no owner", async () => {
  await using tmp = await tempDir();
  const late = await cairnInProcess(tmp.path, "recall", "deploys", "--no-owner");
  assert.equal(late.code, 2);
  assert.equal(
    late.err,
    "cairn recall: --no-owner is cairn's own option and goes before the command: " +
      "cairn --no-owner recall ...",
  );
  const store = await cairnInProcess(tmp.path, "list", "--store=/elsewhere");
  assert.match(store.err, /--store is cairn's own option .*: cairn --store DIR list \.\.\.$/);
  // After `--` it is a word like any other.
  assert.equal((await cairnInProcess(tmp.path, "remember", "--", "--no-owner")).code, 0);
  // The fast path leaves it to the command run here: no owner is started to be told.
  const store2 = `${tmp.path}/fresh`;
  assert.deepEqual(
    await sendToOwner(["--store", store2, "recall", "deploys", "--no-owner"], true),
    { tried: false },
  );
  assert.equal(await Deno.stat(store2).then(() => true, () => false), false);
});

Deno.test("--json and --format json say the same to every command", async () => {
  await using tmp = await tempDir();
  assert.equal((await cairnInProcess(tmp.path, "remember", "Deploys go out on Tuesdays")).code, 0);
  const same = async (...args: string[]) => {
    const json = await cairnInProcess(tmp.path, ...args, "--json");
    const format = await cairnInProcess(tmp.path, ...args, "--format", "json");
    assert.equal(json.code, 0, json.err);
    assert.equal(format.code, 0, format.err);
    assert.equal(json.out, format.out);
    return JSON.parse(json.out);
  };
  assert.equal((await same("list"))[0].content, "Deploys go out on Tuesdays");
  assert.equal((await same("search-text", "deploys")).results.length, 1);
  assert.deepEqual((await same("projects")).projects, []);
  const bad = await cairnInProcess(tmp.path, "list", "--format", "yaml");
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--format is json or markdown, not "yaml"/);
});

Deno.test("cairn --version names the version; cairn help [COMMAND] is --help", async () => {
  await using tmp = await tempDir();
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  for (const flag of ["--version", "-V"]) {
    const version = await cairnInProcess(tmp.path, flag);
    assert.deepEqual([version.code, version.out], [0, `cairn ${config.version}`]);
  }
  const help = await cairnInProcess(tmp.path, "help");
  assert.equal(help.code, 0);
  assert.match(help.out, /^cairn: a local knowledge service/);
  const command = await cairnInProcess(tmp.path, "help", "open");
  assert.equal(command.code, 0);
  assert.equal(command.out, (await cairnInProcess(tmp.path, "open", "--help")).out);
  assert.match(command.out, /^cairn open: .*\n\nusage: cairn open HANDLE/);
  const unknown = await cairnInProcess(tmp.path, "help", "recal");
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /did you mean recall\?/);
});

Deno.test("a store folder that is not there is refused to the commands that need one, and made by the first that writes", async () => {
  await using tmp = await tempDir();
  const missing = join(tmp.path, "stor");
  const exists = () => Deno.stat(missing).then(() => true, () => false);
  for (
    const args of [
      ["recall", "deploys"],
      ["status"],
      ["list"],
      ["graph", "search", "x"],
      [
        "index",
        "--status",
      ],
      ["verify"],
      ["sync"],
    ]
  ) {
    const refused = await cairnInProcess(missing, ...args);
    assert.equal(refused.code, 1, args.join(" "));
    assert.match(
      refused.err,
      new RegExp(`^cairn ${args[0]}: no store at ${missing}: .*mistyped\\?`),
    );
  }
  // The fast path leaves it to the command line run here, which refuses it: no owner is started.
  assert.deepEqual(await sendToOwner(["--store", missing, "recall", "deploys"], true), {
    tried: false,
  });
  assert.equal(await exists(), false, "nothing was made");
  assert.equal((await cairnInProcess(missing, "remember", "Deploys go out on Tuesday")).code, 0);
  assert.equal(await exists(), true);
  assert.match((await cairnInProcess(missing, "list")).out, /Deploys go out on Tuesday/);
});

Deno.test("advice that quotes a command repeats the --store given, and leaves JSON and stored text as they are", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "my store");
  assert.equal((await cairnInProcess(store, "remember", "Deploys go out on Tuesday")).code, 0);
  const advice = await cairnInProcess(store, "index", "--status");
  assert.match(advice.out, new RegExp(`index one with \`cairn --store '${store}' index PATH\``));
  const json = await cairnInProcess(store, "index", "--status", "--json");
  assert.deepEqual(JSON.parse(json.out), []);
  // What the store holds is shown as it is, a quoted command included; errors are cairn's words.
  assert.equal((await cairnInProcess(store, "remember", "Run `cairn index .` nightly")).code, 0);
  assert.match((await cairnInProcess(store, "list")).out, /Run `cairn index \.` nightly/);
  const unknown = await cairnInProcess(store, "search-code", "x", "--project", "nope");
  assert.match(unknown.err, new RegExp(`\\(\`cairn --store '${store}' index PATH\``));
});

Deno.test("a file where the store folder should be, or an empty --store, is refused before anything is written", async () => {
  await using tmp = await tempDir();
  const file = join(tmp.path, "notes.txt");
  await Deno.writeTextFile(file, "not a store");
  const onFile = await cairnInProcess(file, "remember", "x");
  assert.equal(onFile.code, 1);
  assert.equal(
    onFile.err,
    `cairn remember: ${file} is a file; the store is a folder (--store or CAIRN_HOME names it)`,
  );
  const under = await cairnInProcess(join(file, "store"), "status");
  assert.match(under.err, /cannot be a store folder: a part of its path is a file$/);
  const empty = await cliHere(["--store", "", "status"]);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /^cairn: --store needs a directory/);
  assert.equal(await Deno.readTextFile(file), "not a store");
});

Deno.test("replay refuses a projection it does not have before it asks the owner for the store", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  assert.equal((await cairnInProcess(store, "remember", "Deploys go out on Tuesday")).code, 0);
  const refused = await cairnInProcess(store, "replay", "--projection", "grpah");
  assert.equal(refused.code, 2);
  assert.match(refused.err, /^cairn replay: no projection named "grpah"; known: graph, text, /);
  const cairn = await openCairn(store);
  try {
    assert.deepEqual(cairn.store.runner.names, [...PROJECTION_NAMES], "the names it checks by");
  } finally {
    await cairn.close();
  }
});

Deno.test("index without a folder is refused before a store is made or an owner asked", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  for (
    const [args, said] of [
      [["index"], "give the folder to index"],
      [["index", "a", "b"], 'one PATH at most, got also "b"'],
      [["index", "a", "--wait", "--no-wait"], "--wait or --no-wait, not both"],
    ] as const
  ) {
    const refused = await cairnInProcess(store, ...args);
    assert.equal(refused.code, 2, args.join(" "));
    assert.match(refused.err, new RegExp(`^cairn index: ${said}\\nusage: cairn index PATH`));
  }
  assert.equal(await Deno.stat(store).catch(() => undefined), undefined, "no store was made");
});
