import assert from "node:assert/strict";
import { UserError } from "../../src/errors.ts";
import { Member } from "./members.ts";
import { NatsServer, SKIP_REASON } from "./nats_server.ts";

/**
 * A server where alice may do anything and bob may only write and read the
 * project `web` (and what JetStream needs for that).
 */
function permissions(): string {
  const api = "$JS.API";
  const bob = {
    publish: [
      "cairn.p.web",
      `${api}.INFO`,
      `${api}.STREAM.INFO.CAIRN`,
      `${api}.CONSUMER.CREATE.CAIRN.*.cairn.p.web`,
      `${api}.CONSUMER.MSG.NEXT.CAIRN.*`,
      `${api}.CONSUMER.DELETE.CAIRN.*`,
      `${api}.CONSUMER.INFO.CAIRN.*`,
    ],
    subscribe: ["_INBOX.>"],
  };
  return `authorization {
  users: [
    { user: alice, password: "alice-secret" }
    { user: bob, password: "bob-secret", permissions: {
      publish: { allow: ${JSON.stringify(bob.publish)} }
      subscribe: { allow: ${JSON.stringify(bob.subscribe)} }
    } }
  ]
}
`;
}

Deno.test({
  name: "sync: a member without the right to a project is told so clearly and sees nothing of it",
  ignore: SKIP_REASON !== undefined,
  async fn() {
    const conf = await Deno.makeTempFile({ suffix: ".conf" });
    await Deno.writeTextFile(conf, permissions());
    Deno.env.set("CAIRN_TEST_ALICE_PW", "alice-secret");
    Deno.env.set("CAIRN_TEST_BOB_PW", "bob-secret");
    try {
      await using server = await NatsServer.create(true, ["-c", conf]);
      const login = (name: string, projects: string[]) => ({
        user: name,
        password_env: `CAIRN_TEST_${name.toUpperCase()}_PW`,
        projects,
      });
      await using alice = await Member.create("alice", server.url, login("alice", ["api", "web"]));
      await alice.cairn.memories.remember({ content: "api secret plan", project: "api" });
      await alice.cairn.memories.remember({ content: "web is on Vercel", project: "web" });
      assert.equal((await alice.sync()).published, 2);

      // Bob may read web: he gets web's memory.
      await using bob = await Member.create("bob", server.url, login("bob", ["web"]));
      assert.equal((await bob.sync()).applied, 1);

      // Asking for api too is refused with what to do, and nothing of api comes in.
      await using eve = await Member.create("bob2", server.url, login("bob", ["api"]));
      await assert.rejects(
        () => eve.sync({ timeoutMs: 2_000 }),
        (error: Error) => {
          assert.ok(error instanceof UserError, String(error));
          assert.match(error.message, /does not let this member read cairn\.p\.api/);
          assert.match(error.message, /take it out of team\.projects/);
          return true;
        },
      );
      assert.equal((await eve.events()).filter((e) => e.origin).length, 0);

      // Writing to api is refused likewise, and the event waits unpublished.
      await eve.cairn.memories.remember({ content: "bob writes to api", project: "api" });
      await assert.rejects(() => eve.sync(), /does not let this member publish to cairn\.p\.api/);
      assert.equal((await alice.sync()).applied, 0);

      // A wrong password is a clear error too.
      Deno.env.set("CAIRN_TEST_BOB_PW", "wrong");
      await assert.rejects(() => bob.sync(), /refused this store's login/);
    } finally {
      Deno.env.delete("CAIRN_TEST_ALICE_PW");
      Deno.env.delete("CAIRN_TEST_BOB_PW");
      await Deno.remove(conf);
    }
  },
});
