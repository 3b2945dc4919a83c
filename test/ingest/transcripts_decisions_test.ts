import assert from "node:assert/strict";
import { join } from "node:path";
import { claudeFormat } from "../../src/ingest/transcripts/claude.ts";
import { groupTurns, type Turn, turnText } from "../../src/ingest/transcripts/turns.ts";
import { OWN_TRANSCRIPTS, parseFile } from "./transcripts_parse_helper.ts";

const DECISIONS = join(OWN_TRANSCRIPTS, "claude-decisions");
const PLACE = { cwd: "/home/dev/pledge", root: "/home/dev/pledge" };

/** The turns of one of the decision fixtures, with each turn's text as ingest stores it. */
async function turnsOf(name: string): Promise<Array<{ turn: Turn; text: string }>> {
  const { entries, parsed } = await parseFile(join(DECISIONS, name), claudeFormat);
  assert.ok(parsed.every((record) => record.known), `${name}: every record is known`);
  return groupTurns(entries).turns.map((turn) => ({ turn, text: turnText(turn, PLACE) }));
}

/** The one turn of a decision fixture. */
async function onlyTurn(name: string): Promise<{ turn: Turn; text: string }> {
  const turns = await turnsOf(name);
  assert.equal(turns.length, 1, `${name}: one turn`);
  return turns[0]!;
}

Deno.test("claudeFormat keeps the user's answers to AskUserQuestion, the chosen option and the typed one", async () => {
  const only = await onlyTurn("ask-user-question.jsonl");
  assert.deepEqual(only.text.split("\n").slice(0, 3), [
    "User: Put the pledge app online somewhere the charity's board can click through it before Friday.",
    'User answered "Where should the demo instance run?": Render free tier',
    `User answered "What should happen to the demo's data?": Reseed it from scripts/seed.ts on every ` +
    "boot so each board member starts from the same pledges",
  ]);
  assert.doesNotMatch(
    only.text,
    /Fly\.io|You can now continue/,
    "no options not chosen, no tool noise",
  );
});

Deno.test("claudeFormat reads AskUserQuestion answers from the result's text when no toolUseResult has them", () => {
  const parser = claudeFormat.newParser();
  const record = {
    type: "user",
    message: {
      role: "user",
      content: [{
        type: "tool_result",
        tool_use_id: "toolu_q",
        content: 'User has answered your questions: "Which queue?"="Postgres, no Redis". ' +
          "You can now continue with the user's answers in mind.",
      }],
    },
  };
  const { entries } = parser.parse(record, { index: 7, offset: 0, text: "" });
  assert.deepEqual(entries.filter((e) => e.kind === "said"), [
    { kind: "said", line: 7, text: 'answered "Which queue?": Postgres, no Redis' },
  ]);
});

Deno.test("claudeFormat keeps the approval of the agent's plan, named by its title", async () => {
  const { text } = await onlyTurn("plan-approved.jsonl");
  assert.equal(
    text.split("\n")[1],
    'User approved the plan "Make webhook pledges idempotent"',
  );
  assert.doesNotMatch(text, /You can now start coding|Your plan has been saved/);
});

Deno.test("claudeFormat keeps a rejected plan with the user's reason, then the revised plan's approval", async () => {
  const { turn, text } = await onlyTurn("plan-rejected.jsonl");
  assert.deepEqual(turn.said, [
    'rejected the plan "Require a donor name": anonymous donors don\'t need a name; only require ' +
    "it when they tick 'send me a tax receipt'",
    'approved the plan "Require a donor name for tax receipts only"',
  ]);
  assert.match(
    text,
    /^User: Make the donor's name a required field on the pledge form\.\nUser rejected the plan /,
  );
  assert.doesNotMatch(text, /doesn't want to proceed|new_string was NOT written/);
});

Deno.test("claudeFormat keeps a message the user typed while the agent worked, once, and no task notification", async () => {
  const { text } = await onlyTurn("queued-message.jsonl");
  const queued =
    "User wrote while the agent worked: while you're in there, raise the minimum pledge from 1 to 2 euros";
  assert.equal(text.split("\n")[1], queued);
  assert.equal(
    text.split("raise the minimum pledge").length,
    2,
    "the queue's own records add nothing",
  );
  assert.doesNotMatch(text, /task-notification|b7x2k/);
});

Deno.test("claudeFormat keeps what the user said after interrupting as a correction of that turn; a slash command opens its own", async () => {
  const [first, review, ...rest] = await turnsOf("interrupted-correction.jsonl");
  assert.equal(rest.length, 0);
  assert.deepEqual(first!.text.split("\n").slice(0, 2), [
    "User: Rename the donors table to supporters everywhere.",
    "User interrupted the agent: never edit a migration that already ran; add a new one that " +
    "renames the table instead",
  ]);
  assert.match(
    first!.text,
    /→ Edit migrations\/0002_donors\.sql \(failed\)\n→ Write migrations\/0010/,
  );
  assert.equal(review!.turn.prompt, "/review migrations");
  assert.deepEqual(review!.turn.said, []);
});

Deno.test("claudeFormat keeps the reason the user gave for rejecting a tool call, and nothing for a bare rejection", async () => {
  const { turn, text } = await onlyTurn("rejected-tool.jsonl");
  assert.deepEqual(turn.said, [
    "rejected Bash: no new dependency for this, the export is four columns, write the CSV by hand",
  ]);
  assert.match(text, /→ Bash: npm install csv-stringify \(failed\)/);
  assert.match(text, /→ Bash: git push origin main \(failed\)$/);
});
