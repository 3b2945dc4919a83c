import assert from "node:assert/strict";
import { runInOwner } from "../../src/cli/owner_cli.ts";
import { writeOwnerRecord } from "../../src/mcp/owner_file.ts";
import { answerChallenge, provesOwner } from "../../src/mcp/owner_proof.ts";
import { tempDir } from "../helpers.ts";

Deno.test("a process on a dead owner's port never gets the token: it cannot prove it holds it", async () => {
  await using tmp = await tempDir();
  const token = "a".repeat(64);
  await Deno.writeTextFile(`${tmp.path}/serve.token`, `${token}\n`, { mode: 0o600 });
  const seen: string[] = [];
  const impostor = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    seen.push(
      `${request.method} ${new URL(request.url).pathname} ${request.headers.get("authorization")}`,
    );
    return Response.json({ proof: "0".repeat(64) });
  });
  try {
    await writeOwnerRecord(tmp.path, {
      pid: Deno.pid,
      port: impostor.addr.port,
      started_at: new Date().toISOString(),
    });
    assert.equal(await provesOwner(impostor.addr.port, token), false);
    assert.equal(
      await runInOwner(tmp.path, { args: ["status"], cwd: tmp.path, roots: [tmp.path] }, {
        out: () => {},
        err: () => {},
        progress: () => {},
      }),
      undefined,
    );
    assert.ok(seen.length > 0, "it was asked for a proof");
    assert.ok(seen.every((line) => !line.includes(token)), seen.join("\n"));
  } finally {
    await impostor.shutdown();
  }
});

Deno.test("the owner's proof answers the challenge under its token, and refuses a malformed one", async () => {
  const token = "b".repeat(64);
  const owner = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => answerChallenge(new URL(request.url), token),
  );
  try {
    assert.equal(await provesOwner(owner.addr.port, token), true);
    assert.equal(await provesOwner(owner.addr.port, "c".repeat(64)), false);
    const bad = await fetch(`http://127.0.0.1:${owner.addr.port}/owner?challenge=xyz`);
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
  } finally {
    await owner.shutdown();
  }
});
