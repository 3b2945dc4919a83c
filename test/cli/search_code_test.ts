import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { tempDir } from "../helpers.ts";
import { cliHere } from "./in_process.ts";

/** A store with the folder `shop` of `files` (path: text) indexed as the project shop. */
async function indexedShop(dir: string, files: Record<string, string>): Promise<string[]> {
  const repo = join(dir, "shop");
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(repo, path)), { recursive: true });
    await Deno.writeTextFile(join(repo, path), text);
  }
  const store = ["--store", join(dir, "store")];
  assert.equal((await cliHere([...store, "index", repo, "--project", "shop"])).code, 0);
  return store;
}

Deno.test("cairn search-code answers from indexed code, filtered and capped, and says what was wrong; cairn projects lists", async () => {
  await using tmp = await tempDir();
  const store = await indexedShop(tmp.path, {
    "src/hooks.py":
      "def register_hook(hooks, hook):\n    # runs the callback when the event fires\n    hooks.append(hook)\n",
    "src/hooks.ts":
      "export function registerHook(hooks: Array<() => void>, hook: () => void) {\n  hooks.push(hook);\n}\n",
  });

  const json = await cliHere([
    ...store,
    "search-code",
    "register a hook",
    "--language",
    "python",
    "--limit",
    "60",
    "--format",
    "json",
  ]);
  assert.equal(json.code, 0, json.stderr);
  const { results, notes } = JSON.parse(json.stdout);
  assert.deepEqual(
    results.map((r: Record<string, unknown>) =>
      `${r.path}:${r.start_line}-${r.end_line} ${r.name}`
    ),
    ["src/hooks.py:1-3 register_hook"],
  );
  assert.deepEqual(notes, ["limit capped at 50"]);
  // A language goes by its other names too.
  for (const name of ["Python", "py"]) {
    const alias = await cliHere([
      ...store,
      "search-code",
      "register a hook",
      "--language",
      name,
      "--format",
      "json",
    ]);
    assert.deepEqual(JSON.parse(alias.stdout).results, results, name);
  }

  // An empty answer says when the project or the path asked for holds no indexed code.
  const nowhere = await cliHere([...store, "search-code", "hook", "--path", "srcc"]);
  assert.equal(nowhere.code, 0, nowhere.stderr);
  assert.equal(nowhere.stdout, 'Nothing found.\n> no indexed file is at or under "srcc"\n');
  const other = await cliHere([
    ...store,
    "recall",
    "hook",
    "--project",
    "nope",
    "--include",
    "code",
  ]);
  assert.match(other.stdout, /> no code is indexed under project "nope" \(indexed: shop\)$/m);
  const typo = await cliHere([
    ...store,
    "recall",
    "hook",
    "--project",
    "shpo",
    "--include",
    "code",
  ]);
  assert.match(typo.stdout, /> no code is indexed under project "shpo" \(did you mean shop\?\)$/m);
  const mistyped = await cliHere([...store, "search-code", "hook", "--project", "shpo"]);
  assert.match(
    mistyped.stderr,
    /no project named shpo is indexed \(did you mean shop\?\); index it first/,
  );
  const unknown = await cliHere([...store, "search-code", "hook", "--project", "nope"]);
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /no project named nope is indexed; index it first \(`cairn --store \S+ index PATH`, or the index_project tool\)/,
  );
  const language = await cliHere([...store, "search-code", "hook", "--language", "cobol"]);
  assert.equal(language.code, 2, "a usage error");
  assert.match(language.stderr, /language is one of typescript, .*, not "cobol"/);
  const [empty, debug] = await Promise.all([
    cliHere([...store, "search-code", " ", "--format", "json"]),
    cliHere([...store, "search-code", "hook", "--format", "debug"]),
  ]);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /give the code to look for/);
  assert.equal(debug.code, 0, debug.stderr);
  assert.match(debug.stdout, /^1\. \[code src\/\S+ \S+\] score [\d.]+ \| fused [\d.]+ \| vector /m);

  const projects = await cliHere([...store, "projects"]);
  assert.equal(projects.code, 0, projects.stderr);
  assert.match(projects.stdout, /^- shop \(.*shop\): 2 files, 2 chunks, last indexed \d{4}-/);
});

Deno.test("cairn recall --format debug says which kind of file was lowered, by how much, from what", async () => {
  await using tmp = await tempDir();
  const store = await indexedShop(tmp.path, {
    "src/refunds.py":
      "def refund(order):\n    # pays the customer back for a returned order\n    return order.total\n",
    "docs/refunds.md":
      "# Refunds\n\nA refund pays the customer back for a returned order, in full.\n",
  });
  const refunded = (format: string) =>
    cliHere([
      ...store,
      "recall",
      "how is a returned order refunded",
      "--include",
      "code",
      "--format",
      format,
    ]);
  const debug = await refunded("debug");
  assert.equal(debug.code, 0, debug.stderr);
  const lines = debug.stdout.split("\n").filter((line) => /^\d+\. /.test(line));
  assert.match(lines[0]!, /^1\. \[code src\/refunds\.py:1 refund\]/);
  // The nearest file in meaning (its chunks pooled) lends its rank to its chunk.
  assert.match(lines[0]!, / \| file #1 d=[\d.]+/);
  const docs = lines.find((line) => line.includes("docs/refunds.md"));
  const [, fused, before] = /fused ([\d.]+) .*\| documentation x0\.25 of ([\d.]+)/.exec(docs!)!;
  assert.ok(Math.abs(Number(fused) * 4 - Number(before)) < 0.001, docs);
  assert.match(debug.stdout, /^> a lowered chunk's ranks count every candidate; /m);
  const json = await refunded("json");
  const results: Array<{ path: string; lowered?: unknown }> = JSON.parse(json.stdout).results;
  assert.equal(results.find((r) => r.path === "src/refunds.py")!.lowered, undefined);
  assert.deepEqual(results.find((r) => r.path === "docs/refunds.md")!.lowered, {
    kind: "documentation",
    factor: 0.25,
  });
});
