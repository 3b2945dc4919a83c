import assert from "node:assert/strict";
import { sharedVectorsOf } from "../../src/embed/shared_vectors.ts";
import { syncInBackground } from "../../src/team/background.ts";
import { status } from "../../src/ops/status_ops.ts";
import { sync } from "../../src/ops/team_ops.ts";
import { Member } from "./members.ts";
import { NatsServer, SKIP_REASON } from "./nats_server.ts";

/** Who asks, for an operation run here. */
const THIS_CALLER = { cwd: Deno.cwd(), roots: [Deno.cwd()] };

Deno.test({
  name: "syncInBackground() takes in what others publish and offers the team's vectors meanwhile",
  ignore: SKIP_REASON !== undefined,
  async fn() {
    await using server = await NatsServer.create();
    await using alice = await Member.create("alice", server.url);
    await using bob = await Member.create("bob", server.url);
    const lines: string[] = [];
    const background = syncInBackground(bob.cairn.store, (line) => lines.push(line), 100);
    try {
      const { memory } = await alice.cairn.memories.remember({
        content: "Staging deploys run at noon",
        project: "api",
      });
      await alice.sync();
      const said = () => lines.some((line) => /team sync published 0, took in 1/.test(line));
      for (let i = 0; i < 300 && !said(); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(
        (await bob.cairn.memories.get(memory.id))?.content,
        "Staging deploys run at noon",
      );
      assert.ok(sharedVectorsOf(bob.dir), "the team's vectors are offered while it runs");
      assert.ok(said(), lines.join("\n"));
      assert.deepEqual(
        {
          ...background.state()!,
          lastPass: "",
          lastMoved: { ...background.state()!.lastMoved!, at: "" },
        },
        { lastPass: "", lastMoved: { at: "", published: 0, applied: 1 }, pending: 0 },
      );
      bob.cairn.servedBy = {
        pid: Deno.pid,
        port: 1,
        startedAt: new Date().toISOString(),
        team: () => background.state(),
      };
      const manual = sync.render(await sync.run(bob.cairn, {}, THIS_CALLER), {}).text;
      assert.match(
        manual,
        /published 0, took in 0 from others.*\n> the owner syncs by itself every few seconds: its last pass that moved anything, at \d\d:\d\d:\d\d, published 0 and took in 1$/,
      );
      const { text } = status.render(await status.run(bob.cairn, {}, THIS_CALLER), {});
      assert.match(
        text,
        /\nteam {9}last pass \d\d:\d\d:\d\d; last moved \d\d:\d\d:\d\d \(published 0, took in 1\); 0 events to publish\n/,
      );
    } finally {
      await background.stop();
    }
    assert.equal(sharedVectorsOf(bob.dir), undefined, "and withdrawn when it stops");
  },
});

Deno.test("a background pass that reaches no server counts the events still to publish, as sync does", async () => {
  // A port nothing listens on: the team is out of reach from the first pass on.
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `nats://127.0.0.1:${(closed.addr as Deno.NetAddr).port}`;
  closed.close();
  await using alice = await Member.create("alice", url);
  await alice.cairn.memories.remember({ content: "Staging deploys run at noon", project: "api" });
  await alice.cairn.memories.remember({ content: "Prod deploys run on Tuesdays", project: "api" });
  const background = syncInBackground(alice.cairn.store, () => {}, 100);
  try {
    for (let i = 0; i < 300 && !background.state()?.problem; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(background.state()?.problem, "no NATS server of the team answers");
    assert.equal(background.state()?.pending, 2);
    await assert.rejects(() => alice.sync({ timeoutMs: 500 }), /2 event\(s\) wait to be published/);
  } finally {
    await background.stop();
  }
});
