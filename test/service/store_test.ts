import assert from "node:assert/strict";
import { join } from "node:path";
import { storeLayout } from "../../src/service/paths.ts";
import { Store } from "../../src/service/store.ts";
import { tempDir } from "../helpers.ts";

Deno.test("Store.open() empties the scratch folder a process that died left behind", async () => {
  await using tmp = await tempDir();
  const leftover = join(storeLayout(tmp.path).scratch, "graph-as-of-dead", "graph.kuzu");
  await Deno.mkdir(leftover, { recursive: true });
  const store = await Store.open(tmp.path);
  try {
    await assert.rejects(Deno.stat(storeLayout(tmp.path).scratch), Deno.errors.NotFound);
  } finally {
    await store.close();
  }
});
