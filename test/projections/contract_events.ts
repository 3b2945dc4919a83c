/**
 * The events the projection contract (projection_contract.ts) applies: made
 * by the real service on a throw-away store (memories remembered, revised,
 * forgotten and purged; entities, observations and relations; a small code
 * folder indexed, edited and partly deleted; a second project indexed,
 * deleted and indexed again; a Claude Code session ingested twice), so they
 * are the events a store really holds, of every kind.
 * @module
 */
import { dirname, join } from "node:path";
import { blobsOf } from "../../events/compaction.ts";
import { Event, type EventType, type NewEvent, type StoredEvent } from "../../events/schema.ts";
import type { Cairn } from "../../src/service/cairn.ts";
import { collect, tempDir } from "../helpers.ts";
import { answer, prompt, tool } from "../service/claude_lines.ts";
import { openWithFakeModel } from "../service/fake_cairn.ts";

/** The events, numbered from 1 without gaps, and the texts of the blobs they name, by hash. */
export interface ContractEvents {
  events: StoredEvent[];
  texts: Map<string, string>;
}

/** Every kind of event the log can hold: a projection must apply those it reads and skip the rest. */
export const EVENT_KINDS: readonly EventType[] = Event.options.map((option) =>
  option.shape.type.value
);

let made: Promise<ContractEvents> | undefined;

/**
 * The contract's events, made once per test process. Rejects, naming them,
 * when some kind of event is missing: a projection is only held to the
 * contract for the kinds it is shown.
 */
export function contractEvents(): Promise<ContractEvents> {
  return made ??= makeEvents();
}

async function makeEvents(): Promise<ContractEvents> {
  await using tmp = await tempDir("cairn-contract-events-");
  const cairn = await openWithFakeModel(join(tmp.path, "store"));
  const events: StoredEvent[] = [];
  const texts = new Map<string, string>();
  // A purge or a project deletion compacts the log, which drops what later events undid
  // (a memory purged, a file removed, a turn retracted) and their blobs: each append is read
  // back from the log, with its texts, as soon as it is there.
  const append = cairn.store.append.bind(cairn.store);
  cairn.store.append = async (batch: readonly NewEvent[]) => {
    const stored = await append(batch);
    const [first, last] = [stored[0]?.seq ?? Infinity, stored.at(-1)?.seq ?? 0];
    for await (const event of cairn.store.log.read(first)) {
      if (event.seq > last) break;
      events.push(event);
      for (const hash of blobsOf(event)) texts.set(hash, await cairn.store.blobs.get(hash));
    }
    return stored;
  };
  try {
    await story(cairn, tmp.path);
    // What compaction kept is what was read back.
    for (const kept of await collect(cairn.store.log.read())) {
      if (JSON.stringify(kept) !== JSON.stringify(events[kept.seq - 1])) {
        throw new Error(`event ${kept.seq} reads back otherwise after compaction`);
      }
    }
  } finally {
    await cairn.close();
  }
  if (events.some((event, i) => event.seq !== i + 1)) throw new Error("events are not 1, 2, 3…");
  const held = new Set(events.map((event) => event.type));
  const missing = EVENT_KINDS.filter((kind) => !held.has(kind));
  if (missing.length > 0) {
    throw new Error(`the contract's events hold no ${missing.join(", ")}: add them to its story`);
  }
  return { events, texts };
}

const PY = (name: string, body = "return value") =>
  `def ${name}(value):\n    # ${name} is long enough to be a chunk of its own\n    ${body}\n`;

async function write(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), content);
  }
}

/** What happens to the store, in an order that gives each projection something to get wrong. */
async function story(cairn: Cairn, dir: string): Promise<void> {
  const shop = join(dir, "shop");
  const scratch = join(dir, "scratch");
  await Deno.mkdir(join(shop, ".git"), { recursive: true });
  await write(shop, {
    "src/cart.py": PY("add_item") + "\n" + PY("remove_item"),
    "src/pay.ts":
      "export function charge(amount: number): number {\n  // charges the card once\n  return add_item(amount);\n}\n",
    "src/old.py": PY("legacy_total"),
    "README.md": "# Shop\nSells things.\n",
  });
  await write(scratch, { "notes.py": PY("scribble") });
  const { memories, entities, code, sessions } = cairn;

  // Memories naming code and entities before either exists.
  const cart = await memories.remember({
    content: "Checkout calls add_item for every line, then charge once.",
    project: "shop",
    kind: "decision",
    tags: ["checkout"],
    entities: ["Cart"],
    relations: [{ from: "Checkout", to: "Cart", relation_type: "uses" }],
    valid_from: "2026-01-01T00:00:00.000Z",
  });
  const rule = await memories.remember({
    content: "Always run the linter first.",
    kind: "preference",
  });
  await entities.createEntities([
    { name: "Cart", entityType: "class", observations: ["holds the items"] },
    { name: "PaymentGateway", entityType: "service", observations: ["retries twice", "30s"] },
    { name: "Legacy", entityType: "module", observations: [] },
  ]);
  await entities.createRelations([
    { from: "Cart", to: "PaymentGateway", relationType: "calls" },
    { from: "Legacy", to: "Cart", relationType: "replaced_by" },
  ]);
  await memories.importMany([1, 2, 3].map((n) => ({
    content: `Chat line ${n}: the PaymentGateway times out on refunds ${n}.`,
    project: "shop",
    kind: "conversation" as const,
    source: "chat-7",
    external_id: `chat-7-${n}`,
    occurred_at: `2026-01-0${n}T09:00:00.000Z`,
  })));

  await code.index({ path: shop });
  // A memory naming code and an entity already known.
  await memories.remember({
    content: "remove_item must not touch the PaymentGateway.",
    project: "shop",
    tags: ["cart"],
  });
  const transcript = join(dir, "5e55a0b1-0000-4000-8000-0000000000c0.jsonl");
  await Deno.writeTextFile(
    transcript,
    prompt("Why is the total wrong?", shop, 0) +
      tool("Read", { file_path: `${shop}/src/old.py` }, shop, 1) +
      tool("Read", { file_path: `${shop}/src/cart.py` }, shop, 2),
  );
  await sessions.ingest({ path: transcript, agent: "claude" });

  await memories.revise({
    id: cart.memory.id,
    content: "Checkout calls add_item per line and remove_item on undo, then charge once.",
    tags: ["checkout", "undo"],
  });
  await memories.revise({ id: rule.memory.id, kind: "decision", valid_to: "2027-01-01" });
  await entities.addObservations([{ entityName: "Cart", contents: ["is not thread-safe"] }]);
  await entities.deleteObservations([{ entityName: "PaymentGateway", contents: ["30s"] }]);
  await entities.deleteRelations([{ from: "Cart", to: "PaymentGateway", relationType: "calls" }]);
  await entities.deleteEntities(["Legacy"]);

  // An edited file, a deleted one (that a session turn touched), and the session going on.
  await write(shop, { "src/cart.py": PY("add_item") + "\n" + PY("remove_item", "return None") });
  await Deno.remove(join(shop, "src/old.py"));
  await code.index({ path: shop });
  // Its history as git would tell it (the test's repository has none), read twice: the last stands.
  const history = (commits: number): NewEvent => ({
    type: "project.history_read",
    v: 1,
    data: {
      project: "shop",
      head: "c".repeat(40),
      commits,
      pairs: [
        { file: "src/cart.py", partner: "src/pay.ts", commits },
        { file: "src/pay.ts", partner: "src/cart.py", commits },
        { file: "src/cart.py", partner: "src/gone.py", commits },
      ],
    },
  });
  await cairn.store.append([history(2), history(3)]);
  await Deno.writeTextFile(
    transcript,
    tool("Edit", { file_path: `${shop}/src/cart.py` }, shop, 3) +
      answer("remove_item returned the item; it returns None now.", shop, 4) +
      prompt("Now drop legacy_total", shop, 5),
    { append: true },
  );
  await sessions.ingest({ path: transcript, agent: "claude" });

  await memories.forget(rule.memory.id, { reason: "superseded" });
  const [chat] = await memories.list({ project: "shop", kind: "conversation", limit: 1 });
  await memories.forget(chat!.id, { purge: true });

  // A project deleted, then indexed again, and a memory in it.
  await code.index({ path: scratch, project: "scratch" });
  await code.deleteProject("scratch");
  await code.index({ path: scratch, project: "scratch" });
  await memories.remember({ content: "scribble is a stub for now.", project: "scratch" });

  // A teammate's memory taken in from the team's stream (with its origin), then how far it got.
  const origin = {
    member: "teammate",
    seq: 12,
    stream: "CAIRN",
    subject: "cairn.p.shop",
    stream_seq: 3,
    ts: "2026-01-05T10:00:00.000Z",
  };
  await cairn.store.append([
    {
      type: "memory.remembered",
      v: 1,
      data: {
        id: "mem_teammate1",
        project: "shop",
        kind: "fact",
        content: "The PaymentGateway sandbox resets nightly.",
        tags: [],
      },
      origin,
    },
    { type: "team.synced", v: 1, data: { stream: "CAIRN", consumed: { "cairn.p.shop": 3 } } },
  ]);
}
