import assert from "node:assert/strict";
import { join } from "node:path";
import { CALLER_META } from "../../src/mcp/caller.ts";
import { openCairn } from "../../src/service/cairn.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";
import { tempDir } from "../helpers.ts";
import { inMemoryClient } from "./mcp_client.ts";

Deno.test("a client that asks for progress hears how far index_project and delete_project are", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "many");
  await Deno.mkdir(repo);
  for (let i = 0; i < 520; i++) {
    await Deno.writeTextFile(
      join(repo, `m${i}.py`),
      `def handler_${i}(value):\n    return value\n`,
    );
  }
  const cairn = await openCairn(join(tmp.path, "store"), { embedder: new FakeEmbedder() });
  try {
    await using client = await inMemoryClient(cairn);
    const heard: Array<
      { progress: number; total?: number | undefined; message?: string | undefined }
    > = [];
    // The caller's roots hold the folder: an agent may index only what they hold.
    const _meta = { [CALLER_META]: { cwd: tmp.path, roots: [tmp.path] } };
    const call = async (name: string, args: Record<string, unknown>, asks = true) => {
      const result = await client.callTool(
        { name, arguments: args, _meta },
        undefined,
        asks ? { onprogress: (p) => heard.push(p) } : {},
      );
      assert.ok(!result.isError, JSON.stringify(result.content));
    };
    await call("index_project", { path: repo, project: "many" });
    assert.deepEqual(
      heard.map((p) => p.message?.replace(/,.*/, "")),
      ["files 200/520 (38%)", "files 400/520 (76%)", "files 520/520 (100%)"],
    );
    assert.ok(heard.every((p, i) => p.total === 100 && p.progress > (heard[i - 1]?.progress ?? 0)));
    heard.length = 0;
    await call("delete_project", { project: "many" });
    assert.deepEqual(heard.map((p) => p.message), [
      "removing many's chunk texts: 0 of 520",
      "removing many's chunk texts: 500 of 520",
    ]);
    heard.length = 0;
    await call("index_project", { path: repo }, false);
    assert.deepEqual(heard, [], "no progress unless asked");
  } finally {
    await cairn.close();
  }
});
