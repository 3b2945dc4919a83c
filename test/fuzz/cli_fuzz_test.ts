import assert from "node:assert/strict";
import { join } from "node:path";
import type { Command } from "../../src/cli/command.ts";
import { commands, runCli } from "../../src/cli/main.ts";
import { tempDir } from "../helpers.ts";
import { fuzzSeed, Random, randomString } from "./random.ts";
import { assertStoreWhole, openFuzzed } from "./verified.ts";

/**
 * Commands that never end on their own (`sync --watch`), read the user's own
 * folders, or start an owner process (`ui`) are left to their tests.
 */
const LEFT_OUT = new Set(["mcp", "serve", "index", "ingest", "reembed", "sync", "ui"]);
const FLAGS = [
  "--limit",
  "--offset",
  "--json",
  "--format",
  "--project",
  "--kind",
  "--tag",
  "--as-of",
  "--valid-at",
  "--valid-from",
  "--valid-to",
  "--mode",
  "--include",
  "--weights",
  "--language",
  "--path",
  "--purge",
  "--force",
  "--reason",
  "--session",
  "--cursor",
  "--type",
  "--relation",
  "--entity",
  "--observation",
  "--batch",
  "--forgotten",
  "--repair",
  "--projection",
  "--help",
];
const SUBCOMMANDS = [
  "open",
  "search",
  "read",
  "add-entity",
  "relate",
  "observe",
  "delete",
  "unrelate",
];
const RUNS_PER_COMMAND = 25;

/** An argument list for `command`: flags with and without values, positionals of any kind. */
function argv(random: Random, command: Command, ids: readonly string[]): string[] {
  const args = [command.name];
  if (command.name === "graph") args.push(random.pick(SUBCOMMANDS));
  // Mostly the command's own flags, as its usage names them; now and then another one.
  const own = command.usage.match(/--[a-z-]+/g) ?? FLAGS;
  for (let i = random.below(5); i > 0; i--) {
    if (random.chance(0.5)) {
      args.push(random.chance(0.85) ? random.pick(own) : random.pick(FLAGS));
      if (random.chance(0.8)) {
        args.push(
          random.chance(0.3) ? String(random.pick([0, -1, 51, 50_000])) : randomString(random),
        );
      }
    } else {
      args.push(random.chance(0.3) && ids.length ? random.pick(ids) : randomString(random));
    }
  }
  return args;
}

Deno.test("every CLI command takes any arguments: an answer or a refusal in words, never an unexpected error; the store stays whole", async () => {
  const random = new Random(fuzzSeed() + 1);
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  // The commands run without a model (by words), on a store the fake model filled.
  await Deno.mkdir(store);
  await Deno.writeTextFile(
    join(store, "config.json"),
    JSON.stringify({ embedder: { kind: "onnx", model_dir: join(tmp.path, "no-model") } }),
  );
  const seeded = await openFuzzed(store);
  const ids = [
    (await seeded.memories.remember({ content: "Deploys run on Tuesdays" })).memory.id,
    (await seeded.memories.remember({ content: "The cache TTL is five minutes" })).memory.id,
  ];
  await seeded.entities.createEntities([{ name: "billing", entityType: "service" }]);
  await seeded.close();
  const unexpected: string[] = [];
  const codes = [0, 0, 0];
  for (const command of commands.filter((c) => !LEFT_OUT.has(c.name))) {
    for (let i = 0; i < RUNS_PER_COMMAND; i++) {
      const args = argv(random, command, ids);
      const err: string[] = [];
      let code: number;
      try {
        code = await runCli(["--store", store, ...args], {
          out: () => {},
          err: (line) => err.push(line),
        });
      } catch (error) {
        unexpected.push(`${JSON.stringify(args).slice(0, 300)} threw ${(error as Error).message}`);
        continue;
      }
      const said = err.join("\n");
      codes[code] = (codes[code] ?? 0) + 1;
      if (![0, 1, 2].includes(code) || said.includes("CAIRN_DEBUG")) {
        unexpected.push(`${JSON.stringify(args).slice(0, 300)} → ${code}: ${said.slice(0, 300)}`);
      }
    }
  }
  assert.deepEqual(unexpected, [], `seed ${random.seed}`);
  assert.ok(codes[0]! > 40 && codes[1]! > 40 && codes[2]! > 40, `exit codes 0, 1, 2: ${codes}`);
  await assertStoreWhole(await openFuzzed(store));
});
