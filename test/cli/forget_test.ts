import assert from "node:assert/strict";
import { join } from "node:path";
import { filesHolding, tempDir } from "../helpers.ts";
import { cliHere } from "./in_process.ts";
import { serveHere } from "../mcp/serve_here.ts";

const SECRET = "sk-SECRET-67890";

Deno.test("cairn forget --purge run inside cairn serve leaves no copy in the store, and the owner keeps answering", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  await using _serve = await serveHere(store);
  const cairn = async (...args: string[]) => {
    const result = await cliHere(["--store", store, ...args]);
    assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
    return result.stdout;
  };
  await cairn("remember", "Deploys go out on Tuesdays after the billing freeze");
  const { memory } = JSON.parse(
    await cairn("remember", `The staging token is ${SECRET}`, "--json"),
  );
  await cairn("graph", "add-entity", "billing", "--type", "service");
  await cairn("graph", "add-entity", "Redis", "--type", "database");
  await cairn("graph", "relate", "billing", "uses", "Redis");
  assert.ok((await filesHolding(store, SECRET)).length > 0);

  assert.match(await cairn("forget", memory.id, "--purge"), /purged/);
  assert.deepEqual(await filesHolding(store, SECRET), []);
  assert.match(await cairn("graph", "read"), /billing —uses→ Redis/);
  const recalled = await cairn("recall", "when do deploys go out?", "--mode", "lexical");
  assert.match(recalled, /Deploys go out on Tuesdays/);
});
