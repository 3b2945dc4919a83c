import assert from "node:assert/strict";
import { join } from "node:path";
import { storeLayout } from "../../src/service/paths.ts";
import { Store } from "../../src/service/store.ts";
import { openCairn } from "../../src/service/cairn.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";
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

Deno.test("a store is the user's alone: its folder 0700 whoever made it, the graph's file 0600", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "store");
  await Deno.mkdir(dir, { mode: 0o755 });
  await Deno.chmod(dir, 0o755);
  const cairn = await openCairn(dir, { embedder: new FakeEmbedder() });
  await cairn.close();
  assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
  assert.equal(
    (await Deno.stat(join(dir, "projections", "graph", "graph.kuzu"))).mode! & 0o777,
    0o600,
  );
  // A folder the user made read-only loses what others may do, not its owner's choice.
  await Deno.chmod(dir, 0o555);
  const again = await openCairn(dir, { embedder: new FakeEmbedder() }).catch((error) => error);
  if (!(again instanceof Error)) await again.close();
  assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o500);
  await Deno.chmod(dir, 0o700);
});
