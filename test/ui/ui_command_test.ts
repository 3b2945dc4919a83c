import assert from "node:assert/strict";
import { join } from "node:path";
import { cli, tempDir } from "../helpers.ts";
import { killOwner } from "../mcp/mcp_client.ts";
import { readOwnerRecord } from "../../src/mcp/owner_file.ts";

Deno.test("cairn ui starts the store's owner and prints a link that logs in once", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  try {
    const { code, stdout, stderr } = await cli(["--store", store, "ui"]);
    assert.equal(code, 0, stderr);
    const link = stdout.trim();
    const { port } = (await readOwnerRecord(store))!;
    assert.match(link, new RegExp(`^http://127\\.0\\.0\\.1:${port}/ui/login\\?code=`));
    assert.match(stderr, /works once, within 5 minutes/);
    const first = await fetch(link, { redirect: "manual" });
    await first.body?.cancel();
    assert.equal(first.status, 303);
    assert.match(first.headers.get("set-cookie")!, /HttpOnly; SameSite=Strict/);
    const cookie = first.headers.get("set-cookie")!.split(";")[0]!;
    const page = await fetch(`http://127.0.0.1:${port}/ui/`, { headers: { cookie } });
    assert.equal(page.status, 200);
    await page.body?.cancel();
    const again = await fetch(link, { redirect: "manual" });
    await again.body?.cancel();
    assert.equal(again.status, 401);
  } finally {
    await killOwner(store);
  }
});
