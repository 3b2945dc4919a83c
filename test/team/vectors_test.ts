import assert from "node:assert/strict";
import { join } from "node:path";
import { shareVectors } from "../../src/embed/shared_vectors.ts";
import { loadTeamConfig } from "../../src/team/config.ts";
import { TeamVectors } from "../../src/team/team_vectors.ts";
import { tempDir } from "../helpers.ts";
import { Member } from "./members.ts";
import { NatsServer, SKIP_REASON } from "./nats_server.ts";

/** A small repository, the same commit on both machines. */
async function repository(dir: string): Promise<string> {
  const repo = join(dir, "shop");
  await Deno.mkdir(join(repo, "src"), { recursive: true });
  for (const name of ["cart", "payment", "invoice", "refund"]) {
    await Deno.writeTextFile(
      join(repo, "src", `${name}.py`),
      `def ${name}_total(lines):\n    """The ${name} total in cents."""\n    return sum(lines)\n\n` +
        `def ${name}_tax(amount):\n    return amount * 0.2\n`,
    );
  }
  return repo;
}

Deno.test({
  name: "shared vectors: a repository embedded on one member is searchable by meaning on another " +
    "with no embedding computed there",
  ignore: SKIP_REASON !== undefined,
  async fn() {
    await using server = await NatsServer.create();
    await using tmp = await tempDir();
    const repo = await repository(tmp.path);
    await using alice = await Member.create("alice", server.url, {}, { cached: true });
    await using bob = await Member.create("bob", server.url, {}, { cached: true });
    const shared = new Map<Member, TeamVectors>();
    for (const member of [alice, bob]) {
      const vectors = new TeamVectors((await loadTeamConfig(member.dir))!);
      shared.set(member, vectors);
      shareVectors(member.dir, vectors);
    }
    try {
      await alice.cairn.code.index({ path: repo, project: "shop" });
      await alice.cairn.store.runner.settled();
      const computed = alice.model.embedded.length;
      assert.ok(computed > 0);
      assert.equal(shared.get(alice)!.counts.written, computed, "alice shares what she computed");

      await bob.cairn.code.index({ path: repo, project: "shop" });
      await bob.cairn.store.runner.settled();
      assert.equal(bob.model.embedded.length, 0, "bob's model embedded nothing");
      assert.equal(shared.get(bob)!.counts.found, computed);
      const answer = await bob.cairn.recall.run({
        query: "refund total in cents",
        project: "shop",
        sources: ["code"],
        limit: 3,
        mode: "vector",
      });
      assert.ok(answer.items.length > 0, "bob searches the code by meaning");
    } finally {
      for (const [member, vectors] of shared) {
        shareVectors(member.dir, undefined);
        await vectors.close();
      }
    }
  },
});

Deno.test({
  name: "shared vectors: with the server down, a member computes its own and loses nothing",
  ignore: SKIP_REASON !== undefined,
  async fn() {
    await using server = await NatsServer.create(false);
    await using tmp = await tempDir();
    const repo = await repository(tmp.path);
    await using alice = await Member.create("alice", server.url, {}, { cached: true });
    const vectors = new TeamVectors((await loadTeamConfig(alice.dir))!, 200);
    shareVectors(alice.dir, vectors);
    try {
      await alice.cairn.code.index({ path: repo, project: "shop" });
      await alice.cairn.store.runner.settled();
      assert.ok(alice.model.embedded.length > 0);
      assert.deepEqual(vectors.counts, { found: 0, written: 0 });
    } finally {
      shareVectors(alice.dir, undefined);
      await vectors.close();
    }
  },
});
