import assert from "node:assert/strict";
import { join } from "node:path";
import { removeStaleSockets } from "../../src/mcp/stale_sockets.ts";
import { tempDir } from "../helpers.ts";

Deno.test("an owner's socket folder is removed once nothing listens on it, and only then", async () => {
  await using tmp = await tempDir();
  const socketIn = async (name: string) => {
    await Deno.mkdir(join(tmp.path, name));
    return Deno.listen({ transport: "unix", path: join(tmp.path, name, "http.sock") });
  };
  const live = await socketIn("cairn-serve-live");
  const dead = await socketIn("cairn-serve-dead");
  dead.close();
  await Deno.mkdir(join(tmp.path, "cairn-serve-young"));
  await Deno.mkdir(join(tmp.path, "other"));
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const name of ["cairn-serve-live", "cairn-serve-dead", "other"]) {
    await Deno.utime(join(tmp.path, name), hourAgo, hourAgo);
  }
  try {
    assert.equal(await removeStaleSockets(tmp.path), 1);
    const left = (await Array.fromAsync(Deno.readDir(tmp.path))).map((e) => e.name).sort();
    assert.deepEqual(left, ["cairn-serve-live", "cairn-serve-young", "other"]);
  } finally {
    live.close();
  }
});
