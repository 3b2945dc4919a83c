import assert from "node:assert/strict";
import { planCompaction } from "../../events/compaction.ts";
import { MemoryLog } from "../../events/memory_log.ts";
import type { NewEvent, StoredEvent } from "../../events/schema.ts";
import { detailsKey, SessionState } from "../../projections/session_state.ts";
import { collect, tempDir } from "../helpers.ts";

function turn(
  session: string,
  line: number,
  options: { provisional?: boolean; text?: string; compactions?: number[] } = {},
): NewEvent {
  return {
    type: "turn.ingested",
    v: 1,
    data: {
      agent: "claude",
      session,
      line,
      project: "shop",
      started_at: `2026-01-01T00:00:${String(line).padStart(2, "0")}Z`,
      provisional: options.provisional ?? false,
      text: (options.text ?? "b").repeat(64),
      mentions: [{ path: `src/${line}.ts`, absolute: `/shop/src/${line}.ts`, tool: "Edit" }],
      ...(options.compactions ? { compactions: options.compactions } : {}),
    },
  };
}

function retracted(session: string, line: number): NewEvent {
  return { type: "turn.retracted", v: 1, data: { session, line } };
}

function advanced(path: string, offset: number, session: string): NewEvent {
  return { type: "transcript.advanced", v: 1, data: { path, offset, session } };
}

/** Session events as ingests append them: provisional turns replaced, lines withdrawn. */
async function sessionEvents(): Promise<StoredEvent[]> {
  const log = new MemoryLog();
  for (
    const batch of [
      [
        turn("s1", 0),
        turn("s1", 4),
        turn("s1", 9, { provisional: true }),
        advanced("/t/1", 90, "s1"),
      ],
      [retracted("s1", 9), turn("s1", 9, { text: "c" }), turn("s1", 12, { provisional: true })],
      [advanced("/t/1", 120, "s1"), { type: "memory.forgotten", v: 1, data: { id: "m" } }],
      // A session id holding a NUL, a newline and a tab, as a transcript may give it.
      [turn("odd\0id\n\t", 3, { compactions: [5, 7] }), advanced("/t/odd", 40, "odd\0id\n\t")],
      [retracted("s1", 4), retracted("s1", 12), retracted("s1", 77), retracted("nobody", 1)],
      [turn("s1", 4, { text: "d" }), retracted("odd\0id\n\t", 3)],
      [turn("s2/agent-1", 0), advanced("/t/1", 130, "s1")],
    ] as NewEvent[][]
  ) await log.append(batch);
  return await collect(log.read());
}

/** What `readKnown` folded from the log before the session state was a projection. */
function foldedFromLog(events: readonly StoredEvent[]) {
  const transcripts = new Map<string, { offset: number; session: string }>();
  const turns = new Map<string, Map<number, unknown>>();
  for (const event of events) {
    if (event.type === "transcript.advanced") {
      transcripts.set(event.data.path, { offset: event.data.offset, session: event.data.session });
    } else if (event.type === "turn.ingested") {
      const { session, line, text, provisional, mentions, compactions, started_at } = event.data;
      let live = turns.get(session);
      if (!live) turns.set(session, live = new Map());
      live.set(line, {
        text,
        provisional,
        details: detailsKey(mentions, compactions),
        startedAt: started_at,
      });
    } else if (event.type === "turn.retracted") {
      turns.get(event.data.session)?.delete(event.data.line);
    }
  }
  return { transcripts, turns };
}

/** The answers a re-ingest reads: each transcript, and each session's live turns in their order. */
function answers(known: ReturnType<typeof foldedFromLog> | SessionState["known"]) {
  return {
    transcripts: [...known.transcripts],
    // A session whose turns were all withdrawn holds none, whether it is listed or not.
    turns: [...known.turns].filter(([, live]) => live.size > 0)
      .map(([session, live]) => [session, [...live]] as const),
  };
}

Deno.test("SessionState answers what the fold of the log's session events answered, whatever the batches", async () => {
  const events = await sessionEvents();
  const expected = answers(foldedFromLog(events));
  for (const size of [1, 3, events.length]) {
    const state = SessionState.inMemory();
    for (let at = 0; at < events.length; at += size) await state.apply(events.slice(at, at + size));
    assert.deepEqual(answers(state.known), expected, `batches of ${size}`);
    assert.equal(await state.count(), 2 + 4, "two transcripts, four live turns");
  }
});

Deno.test("SessionState keeps its transcripts and turns, in order, across a reopen", async () => {
  await using tmp = await tempDir();
  const events = await sessionEvents();
  const state = await SessionState.open(tmp.path);
  for (const event of events) await state.apply([event]);
  const digest = await state.digest();
  await state.apply(events.slice(2, 9));
  assert.equal(await state.digest(), digest, "events handed again change nothing");
  await state.close();

  const reopened = await SessionState.open(tmp.path);
  assert.deepEqual(answers(reopened.known), answers(foldedFromLog(events)));
  assert.equal(await reopened.digest(), digest);
  await reopened.close();
});

Deno.test("SessionState.reset() empties it, on disk too, and the log builds it again the same", async () => {
  await using tmp = await tempDir();
  const events = await sessionEvents();
  const state = await SessionState.open(tmp.path);
  await state.apply(events);
  const digest = await state.digest();
  await state.reset();
  assert.equal(await state.count(), 0);
  await state.close();

  const emptied = await SessionState.open(tmp.path);
  assert.deepEqual(answers(emptied.known), { transcripts: [], turns: [] });
  await emptied.apply(events);
  assert.equal(await emptied.digest(), digest);
  await emptied.close();
});

Deno.test("SessionState holds the same once its log is compacted (superseded turns dropped)", async () => {
  const events = await sessionEvents();
  const state = SessionState.inMemory();
  await state.apply(events);
  const { drop } = await planCompaction((async function* () {
    yield* events;
  })());
  assert.ok(drop.size > 0);
  const compacted = SessionState.inMemory();
  await compacted.apply(events.filter((event) => !drop.has(event.seq)));
  assert.equal(await compacted.digest(), await state.digest());
});
