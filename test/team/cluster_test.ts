import assert from "node:assert/strict";
import { Member } from "./members.ts";
import { eventually, NatsServer, SKIP_REASON } from "./nats_server.ts";

/** A member's memories of `api`: the ids and texts, to compare members by. */
async function memoriesOf(member: Member): Promise<string[]> {
  const listed = await member.cairn.memories.list({ project: "api", limit: 50 });
  return listed.map((m) => `${m.id} ${m.content}`).toSorted();
}

Deno.test({
  name: "sync on a 3-node cluster: members converge through a node and a member killed mid-sync",
  ignore: SKIP_REASON !== undefined,
  async fn() {
    const nodes = await NatsServer.cluster(3);
    const members: Member[] = [];
    try {
      // Each member knows every node, its own first.
      for (const [i, name] of ["alice", "bob", "carol"].entries()) {
        const servers = [...nodes.slice(i), ...nodes.slice(0, i)].map((node) => node.url);
        members.push(await Member.create(name, servers[0]!, { servers, replicas: 3 }));
      }
      const [alice, bob, carol] = members as [Member, Member, Member];
      await eventually(() => alice.sync());

      // A memory remembered on each is on the others after a pass of each: well within a second.
      const latencies: number[] = [];
      for (const [n, writer] of members.entries()) {
        await writer.cairn.memories.remember({
          content: `decision ${n} of ${writer.name}`,
          project: "api",
        });
        const started = performance.now();
        await writer.sync();
        for (const reader of members) if (reader !== writer) await reader.sync();
        latencies.push(performance.now() - started);
      }
      assert.ok(Math.max(...latencies) < 1_000, `latencies ${latencies.map(Math.round)} ms`);
      assert.deepEqual(await memoriesOf(bob), await memoriesOf(alice));

      // One node dies; alice writes on, and is killed once the cluster acknowledged her first event.
      await nodes[0]!.stop();
      await alice.cairn.memories.remember({ content: "written with a node down", project: "api" });
      await alice.cairn.memories.remember({ content: "and another one", project: "api" });
      assert.equal(await alice.killedSync("after-publish"), 137);
      await carol.cairn.memories.remember({ content: "carol goes on meanwhile", project: "api" });
      for (const member of members) await eventually(() => member.sync());

      await nodes[0]!.start();
      // A node catching up can answer a pass from behind: the next pass brings the rest.
      let states: string[][] = [];
      for (let round = 0; round < 10; round++) {
        for (const member of members) await eventually(() => member.sync());
        states = await Promise.all(members.map(memoriesOf));
        if (states.every((state) => state.length === 6)) break;
      }
      const [a, b, c] = states;
      assert.equal(a!.length, 6);
      assert.deepEqual(b, a);
      assert.deepEqual(c, a);
      for (const member of members) {
        const remembered = (await member.events()).filter((e) => e.type === "memory.remembered");
        assert.equal(remembered.length, 6, `${member.name}: no event lost or applied twice`);
      }
    } finally {
      for (const member of members) await member[Symbol.asyncDispose]();
      for (const node of nodes) await node[Symbol.asyncDispose]();
    }
  },
});
