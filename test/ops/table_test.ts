import assert from "node:assert/strict";
import { join } from "node:path";
import { commands } from "../../src/cli/main.ts";
import { OWNED_COMMANDS } from "../../src/cli/global_options.ts";
import { localTools } from "../../src/mcp/handlers.ts";
import { toolsFor } from "../../src/mcp/tools.ts";
import { OPERATIONS } from "../../src/ops/table.ts";
import { openCairn } from "../../src/service/cairn.ts";
import { tempDir } from "../helpers.ts";
import { cairnInProcess } from "../cli/in_process.ts";

Deno.test("every operation is a CLI command and (unless CLI-only) an MCP tool; every MCP tool is the table's", () => {
  const names = new Set(commands.map((command) => command.name));
  for (const op of OPERATIONS) {
    const [command, sub] = op.command?.split(" ") ?? [];
    if (command && sub) {
      const usage = commands.find((c) => c.name === command)?.usage ?? "";
      assert.ok(usage.includes(`  ${sub} `), `cairn ${op.command} exists`);
    } else if (command) assert.ok(names.has(command), `cairn ${op.command} exists`);
    else {
      const [command, flag] = op.via!.split(" ");
      const usage = commands.find((c) => c.name === command)?.usage ?? "";
      assert.ok(usage.includes(flag!), `${op.tool} is reached by cairn ${op.via}`);
    }
  }
  const fromTable = OPERATIONS.flatMap((op) => op.tool ?? []);
  const listed = toolsFor("all").map((tool) => tool.name);
  assert.deepEqual(listed, fromTable);
  assert.equal(new Set(listed).size, listed.length, "no tool twice");
});

Deno.test("the store's owner runs every command but those that need the store to themselves, or none", () => {
  const here = commands.map((c) => c.name).filter((name) => !OWNED_COMMANDS.has(name));
  assert.deepEqual(here.sort(), ["compact", "mcp", "replay", "serve", "stop", "ui", "verify"]);
  for (const name of OWNED_COMMANDS) assert.ok(commands.some((c) => c.name === name), name);
});

Deno.test("every command is an operation's, but those that run processes or take the whole store", () => {
  const fromTable = new Set(OPERATIONS.flatMap((op) => op.command?.split(" ")[0] ?? []));
  const others = commands.map((c) => c.name).filter((name) => !fromTable.has(name));
  assert.deepEqual(others.sort(), ["compact", "mcp", "replay", "serve", "stop", "ui", "verify"]);
});

Deno.test("an operation answers the same words through the CLI and through MCP", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const repo = join(tmp.path, "ledger");
  await Deno.mkdir(repo);
  await Deno.writeTextFile(
    join(repo, "audit.py"),
    'def nightly_audit(entries):\n    """Checks the ledger every night."""\n    return entries\n',
  );
  const cli = async (...args: string[]) => {
    const run = await cairnInProcess(store, ...args);
    assert.equal(run.code, 0, run.err);
    // Advice on the command line repeats the store it was given, which MCP has no use for.
    return run.out.replaceAll(`\`cairn --store ${store} `, "`cairn ");
  };
  await cli("remember", "The ledger is audited every night", "--project", "ledger");
  await cli("index", repo);
  const same: Array<[string[], string, Record<string, unknown>]> = [
    [["recall", "when is the ledger audited"], "recall", { query: "when is the ledger audited" }],
    [["search-text", "audited"], "search_text", { query: "audited" }],
    [["search-code", "nightly audit"], "search_code", { query: "nightly audit" }],
    [["history", "the audit"], "session_history", { query: "the audit" }],
    [["list", "--project", "ledger"], "list_memories", { project: "ledger" }],
    [["projects"], "list_projects", {}],
    [["index", "--status", "ledger"], "get_index_status", { project: "ledger" }],
  ];
  const cairn = await openCairn(store);
  const answers: Array<[string, string]> = [];
  try {
    const call = localTools(cairn);
    for (const [, tool, args] of same) {
      answers.push([
        tool,
        (await call(tool, args, { cwd: tmp.path, roots: [tmp.path] })).content[0]!.text,
      ]);
    }
  } finally {
    await cairn.close();
  }
  for (const [i, [args]] of same.entries()) {
    const [tool, text] = answers[i]!;
    assert.equal(await cli(...args), text, `cairn ${args.join(" ")} and the ${tool} tool`);
  }
});
