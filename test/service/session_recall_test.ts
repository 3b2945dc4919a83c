import assert from "node:assert/strict";
import { join } from "node:path";
import { openCairn } from "../../src/service/cairn.ts";
import { sessionHistory } from "../../src/service/session_history.ts";
import type { RecallRequest } from "../../src/recall/types.ts";
import { tempDir } from "../helpers.ts";
import "../embed/shared_model.ts";
import { answer, compactBoundary, prompt, SESSION, tool } from "./claude_lines.ts";

const OTHER = "5e55a0b1-0000-4000-8000-000000000002";
const cwd = "/home/dev/shop";

/** Session A compacts after its second turn; session B touched ingest.rs. */
async function ingestTwoSessions(dir: string, cairn: Awaited<ReturnType<typeof openCairn>>) {
  const a = join(dir, `${SESSION}.jsonl`);
  await Deno.writeTextFile(
    a,
    prompt("Set up continuous integration for the project", cwd, 0) +
      tool("Write", { file_path: `${cwd}/.github/workflows/ci.yml`, content: "on: push" }, cwd, 1) +
      answer("Added a workflow that runs the tests on every push.", cwd, 2) +
      prompt("Make the release notes mention the new logo", cwd, 3) +
      answer("The release notes now show the logo.", cwd, 4) +
      compactBoundary(cwd, 5) +
      prompt("Bump the toolchain version the pipeline uses", cwd, 6) +
      tool("Edit", { file_path: `${cwd}/.github/workflows/ci.yml` }, cwd, 7) +
      answer("Pinned the toolchain in the workflow.", cwd, 8) +
      prompt("thanks", cwd, 9) +
      answer("You're welcome.", cwd, 10),
  );
  const b = join(dir, `${OTHER}.jsonl`);
  await Deno.writeTextFile(
    b,
    prompt("The reader chokes on blank records, skip them", cwd, 0, OTHER) +
      tool("Edit", { file_path: `${cwd}/src/reader/ingest.rs` }, cwd, 1, OTHER) +
      answer("Empty lines are now ignored before parsing.", cwd, 2, OTHER),
  );
  const report = await cairn.sessions.ingest({ path: a, agent: "claude", final: true });
  assert.deepEqual(report.compactions, [5]);
  await cairn.sessions.ingest({ path: b, agent: "claude", final: true });
  await cairn.store.runner.settled();
}

const turns = async (
  cairn: Awaited<ReturnType<typeof openCairn>>,
  request: Partial<RecallRequest> & { query: string },
) =>
  (await cairn.recall.run({ sources: ["turn"], limit: 10, mode: "hybrid", ...request })).items
    .flatMap((item) =>
      item.type === "turn" ? [`${item.turn.session.slice(-1)}:${item.turn.line}`] : []
    );

Deno.test("recall leaves out the asking session's turns still in its context, not those before its compaction", async () => {
  await using tmp = await tempDir();
  const cairn = await openCairn(join(tmp.path, "store"));
  try {
    await ingestTwoSessions(tmp.path, cairn);
    const anyone = await turns(cairn, { query: "why was ci.yml changed?" });
    assert.ok(anyone.includes("1:0") && anyone.includes("1:6"), anyone.join(" "));

    const asking = await turns(cairn, { query: "why was ci.yml changed?", session: SESSION });
    assert.ok(asking.includes("1:0"), "turns before the compact boundary come back");
    assert.ok(!asking.includes("1:6") && !asking.includes("1:9"), asking.join(" "));
    for (const mode of ["vector", "lexical"] as const) {
      const found = await turns(cairn, {
        query: "toolchain pipeline ci.yml",
        session: SESSION,
        mode,
      });
      assert.ok(!found.includes("1:6"), `${mode}: ${found.join(" ")}`);
    }

    const other = await turns(cairn, { query: "why was ci.yml changed?", session: OTHER });
    assert.ok(other.includes("1:6"), "another session's turns are not in this one's context");

    // Nothing but the asking session's own turns in context matches: the answer says so.
    const own = await cairn.recall.run({
      query: "toolchain pinned",
      sources: ["turn"],
      project: "shop",
      limit: 10,
      mode: "lexical",
      session: SESSION,
    });
    assert.deepEqual(own.items, []);
    assert.ok(
      own.notes.some((note) =>
        /turns? of this session matched and (was|were) left out: still in your context/.test(note)
      ),
      own.notes.join("\n"),
    );

    // An id that is no session's, or the start of two, is said, not passed over.
    for (
      const [session, said] of [
        ["nope-session", "no ingested session is nope-session: none of its turns were left out"],
        [
          SESSION.slice(0, 8),
          "5e55a0b1 starts more than one session's id: give the whole id to leave its turns out",
        ],
      ]
    ) {
      const unknown = await cairn.recall.run({
        query: "toolchain pinned",
        sources: ["turn"],
        limit: 10,
        mode: "lexical",
        session: session!,
      });
      assert.ok(unknown.notes.includes(said!), unknown.notes.join("\n"));
    }
  } finally {
    await cairn.close();
  }
});

Deno.test("recall finds a turn through a file the query names, even past the distance threshold", async () => {
  await using tmp = await tempDir();
  const cairn = await openCairn(join(tmp.path, "store"));
  try {
    await ingestTwoSessions(tmp.path, cairn);
    const strict = { threshold: 0, fileDistance: 0.4 };
    assert.deepEqual(
      await turns(cairn, {
        query: "what happened to ingest.rs?",
        mode: "vector",
        sessionFiles: strict,
      }),
      ["2:0"],
      "only the turn that touched the named file passes a zero threshold",
    );
    const unfiltered = await turns(cairn, {
      query: "what happened to ingest.rs?",
      mode: "vector",
      sessionFiles: false,
    });
    assert.equal(unfiltered.length, 5, `without the pipeline no turn is dropped: ${unfiltered}`);
    assert.equal(
      (await turns(cairn, { query: "what happened to ingest.rs?" }))[0],
      "2:0",
      "by default the named file's turn comes first",
    );
    const [hit] = (await cairn.recall.run({
      query: "what happened to ingest.rs?",
      sources: ["turn"],
      limit: 1,
      mode: "vector",
      sessionFiles: strict,
    })).items;
    const distance = hit?.components.vector?.distance ?? Infinity;
    assert.ok(
      distance > 0 && distance <= 0.4,
      `placed no farther than the file distance: ${distance}`,
    );
  } finally {
    await cairn.close();
  }
});

Deno.test("a provisional turn replaced when the session goes on takes its old file mentions out of the history", async () => {
  await using tmp = await tempDir();
  const cairn = await openCairn(join(tmp.path, "store"));
  const path = join(tmp.path, `${SESSION}.jsonl`);
  const history = async (file: string) =>
    (await sessionHistory(
      { graph: cairn.graph.database, text: cairn.text },
      { path: file },
    )).entries.map((entry) => `${entry.turn.line} ${entry.tools.join(",")}`);
  try {
    // The running turn has read draft.ts so far, and is stored as provisional.
    await Deno.writeTextFile(
      path,
      prompt("Tidy up the checkout module", cwd, 0) +
        tool("Read", { file_path: `${cwd}/src/draft.ts` }, cwd, 1),
    );
    await cairn.sessions.ingest({ path, agent: "claude" });
    assert.deepEqual(await history("src/draft.ts"), ["0 Read"]);
    // The transcript is rewritten from that turn on (Claude Code rewinds a turn this way):
    // the turn now edits checkout.ts instead.
    await Deno.writeTextFile(
      path,
      prompt("Tidy up the checkout module", cwd, 0) +
        tool("Edit", { file_path: `${cwd}/src/checkout.ts` }, cwd, 1) +
        answer("Split checkout into two functions.", cwd, 2) +
        prompt("Thanks", cwd, 3),
    );
    const report = await cairn.sessions.ingest({ path, agent: "claude" });
    assert.equal(report.replaced, 1);
    assert.deepEqual(await history("src/checkout.ts"), ["0 Edit"]);
    assert.deepEqual(await history("src/draft.ts"), [], "the retracted mention is gone");
  } finally {
    await cairn.close();
  }
});

Deno.test("recall takes the start of a session's id, as answers show it, for the asking session", async () => {
  await using tmp = await tempDir();
  const cairn = await openCairn(join(tmp.path, "store"));
  try {
    const path = join(tmp.path, `${OTHER}.jsonl`);
    await Deno.writeTextFile(
      path,
      prompt("The reader chokes on blank records, skip them", cwd, 0, OTHER) +
        answer("Empty lines are now ignored before parsing.", cwd, 1, OTHER),
    );
    await cairn.sessions.ingest({ path, agent: "claude", final: true });
    await cairn.store.runner.settled();
    const ask = (session?: string) =>
      cairn.recall.run({
        query: "blank records",
        sources: ["turn"],
        limit: 10,
        mode: "lexical",
        ...(session ? { session } : {}),
      });
    assert.equal((await ask()).items.length, 1);
    const short = await ask(OTHER.slice(0, 8));
    assert.deepEqual(short.items, [], "its own turn, still in its context, is left out");
    assert.match(short.notes.join("\n"), /1 turn of this session matched and was left out/);
  } finally {
    await cairn.close();
  }
});
