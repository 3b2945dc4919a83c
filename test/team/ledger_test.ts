import assert from "node:assert/strict";
import { MemoryLog } from "../../events/memory_log.ts";
import type { NewEvent } from "../../events/schema.ts";
import { TeamConfig } from "../../src/team/config.ts";
import { Ledger } from "../../src/team/ledger.ts";
import { sharePolicy } from "../../src/team/share_policy.ts";
import { remembered } from "../helpers.ts";

const TEXT = "a".repeat(64);

function turn(session: string, project: string): NewEvent {
  return {
    type: "turn.ingested",
    v: 1,
    data: {
      agent: "claude",
      session,
      line: 0,
      project,
      started_at: "2026-11-27T10:00:00.000Z",
      provisional: false,
      text: TEXT,
      mentions: [],
    },
  };
}

async function ledgerOf(events: NewEvent[], team: Record<string, unknown> = {}): Promise<Ledger> {
  const log = new MemoryLog();
  await log.append(events);
  const config = TeamConfig.parse({
    servers: ["nats://127.0.0.1:4222"],
    projects: ["api"],
    ...team,
  });
  const ledger = new Ledger("alice", "CAIRN", sharePolicy(config));
  await ledger.catchUp(log);
  return ledger;
}

const GIVEN: NewEvent[] = [
  remembered("mem_api", "shared", "api"),
  remembered("mem_secret", "not shared", "secret"),
  remembered("mem_global", "no project", null),
  { type: "memory.revised", v: 1, data: { id: "mem_api", content: "shared, revised" } },
  { type: "memory.forgotten", v: 1, data: { id: "mem_secret" } },
  {
    type: "entity.created",
    v: 1,
    data: { name: "Billing", entity_type: "service", observations: [], project: "api" },
  },
  {
    type: "observations.added",
    v: 1,
    data: { entity: "Billing", observations: ["uses Postgres"] },
  },
  turn("s1", "api"),
  { type: "project.registered", v: 1, data: { project: "api", root: "/src/api" } },
];

Deno.test("Ledger: what waits to be published is the shared projects' memories and graph", async () => {
  const ledger = await ledgerOf(GIVEN);
  assert.deepEqual(ledger.pending().map(({ event, subject }) => [event.seq, subject]), [
    [1, "cairn.p.api"],
    [4, "cairn.p.api"],
    [6, "cairn.p.api"],
    [7, "cairn.p.api"],
  ]);
});

Deno.test("Ledger: an entity a memory named is of that memory's project, and its changes travel with it", async () => {
  const orders = remembered("mem_orders", "Orders go through Kafka", "api");
  const ledger = await ledgerOf([
    { ...orders, data: { ...orders.data, entities: ["Kafka"] } } as NewEvent,
    { type: "observations.added", v: 1, data: { entity: "Kafka", observations: ["3 brokers"] } },
  ]);
  assert.deepEqual(ledger.pending().map(({ event, subject }) => [event.type, subject]), [
    ["memory.remembered", "cairn.p.api"],
    ["observations.added", "cairn.p.api"],
  ]);
});

Deno.test("Ledger: sessions and memories of no project are shared only when asked", async () => {
  const ledger = await ledgerOf(GIVEN, { sessions: ["api"], global: true });
  assert.deepEqual(ledger.pending().map(({ event }) => event.seq), [1, 3, 4, 6, 7, 8]);
  assert.equal(ledger.pending()[1]!.subject, "cairn.global");
  assert.equal(ledger.pending()[5]!.subject, "cairn.s.api");
});

Deno.test("Ledger: published positions and origins are read back from the log", async () => {
  const origin = {
    member: "bob",
    seq: 4,
    stream: "CAIRN",
    subject: "cairn.p.api",
    stream_seq: 9,
  };
  const ledger = await ledgerOf([
    ...GIVEN,
    { type: "team.synced", v: 1, data: { stream: "CAIRN", published: [[1, 5], [4, 6]] } },
    { ...remembered("mem_bob", "from bob", "api"), origin },
    { type: "team.synced", v: 1, data: { stream: "CAIRN", consumed: { "cairn.p.api": 12 } } },
    { type: "team.synced", v: 1, data: { stream: "OTHER", consumed: { "cairn.p.api": 99 } } },
  ]);
  assert.deepEqual(ledger.pending().map(({ event }) => event.seq), [6, 7]);
  assert.equal(ledger.ownPosition(4), 6);
  assert.equal(ledger.ownPosition(6), Infinity);
  assert.ok(ledger.applied.has("bob\x004"));
  assert.equal(ledger.cursor("cairn.p.api"), 12);
  assert.equal(ledger.cursor("cairn.>"), 9, "another filter's marks are its own");
  assert.equal(ledger.cursor("cairn.p.web"), 0);
});

Deno.test("subjectOf() writes any project name as one subject token", async () => {
  const { subjectOf } = await import("../../src/team/subjects.ts");
  assert.equal(subjectOf("cairn", "my-api_2"), "cairn.p.my-api_2");
  assert.equal(subjectOf("cairn", "a.b c*>"), "cairn.p.a~2eb~20c~2a~3e");
  assert.equal(subjectOf("cairn", "ü"), "cairn.p.~c3~bc");
  assert.equal(subjectOf("cairn", null), "cairn.global");
});

Deno.test("foldedKey() folds texts as the graph's contentKey does for local duplicates", async () => {
  const { contentKey } = await import("../../projections/graph/graph_projection.ts");
  const { foldedKey } = await import("../../src/team/stream_order.ts");
  for (
    const text of ["We use Postgres", "  we USE\tpostgres \n", "Ｐｏｓｔｇｒｅｓ", "é vs e\u0301"]
  ) {
    assert.equal(foldedKey(text), await contentKey(text), text);
  }
});

Deno.test("TeamConfig takes NATS servers only, and says what one looks like", () => {
  const servers = (list: string[]) => TeamConfig.safeParse({ servers: list, projects: ["api"] });
  for (const ok of ["nats://127.0.0.1:4222", "tls://nats.example:4443", "wss://n:443", "n1:4222"]) {
    assert.ok(servers([ok]).success, ok);
  }
  const http = servers(["http://127.0.0.1:14337"]);
  assert.ok(!http.success);
  assert.match(http.error.issues[0]!.message, /a NATS server looks like nats:\/\/host:4222/);
});
