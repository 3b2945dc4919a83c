import assert from "node:assert/strict";
import { join } from "node:path";
import { PROJECT, QUESTIONS, SESSIONS } from "../../bench/session_corpus.ts";
import { corpusQuestions, FIXTURE_QUESTIONS, writeCorpus } from "../../bench/sessions.ts";
import { claudeFormat } from "../../src/ingest/transcripts/claude.ts";
import { groupTurns, turnText } from "../../src/ingest/transcripts/turns.ts";
import { parseFile, SHARED_TRANSCRIPTS, sharedOnly } from "../ingest/transcripts_parse_helper.ts";
import { tempDir } from "../helpers.ts";

/** The text cairn stores for each turn of the transcripts in `dir`, by `session:line`. */
async function ingestedTexts(dir: string): Promise<Map<string, string>> {
  const place = { cwd: `/home/dev/${PROJECT}`, root: `/home/dev/${PROJECT}` };
  const texts = new Map<string, string>();
  for (const entry of Deno.readDirSync(dir)) {
    const { entries, parsed } = await parseFile(join(dir, entry.name), claudeFormat);
    const session = parsed.find((record) => record.session)?.session;
    for (const turn of groupTurns(entries).turns) {
      texts.set(`${session}:${turn.line}`, turnText(turn, place));
    }
  }
  return texts;
}

Deno.test("the session corpus reads every session and question of bench/data/sessions", () => {
  assert.equal(SESSIONS.length, 44);
  assert.equal(new Set(SESSIONS.map((s) => s.id)).size, SESSIONS.length);
  const kinds = Object.groupBy(QUESTIONS, (q) => q.kind);
  assert.deepEqual(
    Object.fromEntries(Object.entries(kinds).map(([kind, list]) => [kind, list!.length])),
    { paraphrase: 60, file: 42, "in-context": 21, decision: 10 },
  );
});

Deno.test("every corpus question's gold_text is in a gold turn's text as cairn ingests it", async () => {
  await using tmp = await tempDir();
  const lines = await writeCorpus(tmp.path);
  const texts = await ingestedTexts(tmp.path);
  const questions = corpusQuestions(lines).filter((q) => q.id.startsWith("q"));
  assert.equal(questions.length, QUESTIONS.length);
  for (const question of questions) {
    const words = question.gold_text.split(/\s+/).length;
    assert.ok(words >= 5 && words <= 25, `${question.query}: ${words} words`);
    assert.ok(
      question.gold.some((id) => texts.get(id)?.includes(question.gold_text)),
      `${question.query}: "${question.gold_text}" is in no gold turn`,
    );
  }
});

Deno.test("the corpus's answers and plan decisions are written so cairn keeps them as the user's words", async () => {
  await using tmp = await tempDir();
  const lines = await writeCorpus(tmp.path);
  const texts = await ingestedTexts(tmp.path);
  let decisions = 0;
  for (const session of SESSIONS) {
    session.turns.forEach((turn, i) => {
      const said = texts.get(`${session.id}:${lines.get(session.id)![i]}`)!.split("\n")
        .filter((line) => line.startsWith("User "));
      for (const tool of turn.tools) {
        if (tool.name === "AskUserQuestion") {
          for (const [question, answer] of Object.entries(tool.answers)) {
            assert.ok(said.includes(`User answered "${question}": ${answer}`), question);
            decisions++;
          }
        } else if (tool.name === "ExitPlanMode") {
          const title = tool.input.plan.split("\n")[0]!.replace(/^#+\s*/, "");
          const line = tool.rejected
            ? `User rejected the plan "${title}": ${tool.rejected}`
            : `User approved the plan "${title}"`;
          assert.ok(said.includes(line), line);
          decisions++;
        }
      }
    });
  }
  assert.equal(decisions, 12);
});

Deno.test({
  ...sharedOnly("every fixture question's gold_text is in its turn's text as cairn ingests it"),
  fn: async () => {
    const texts = await ingestedTexts(SHARED_TRANSCRIPTS);
    for (const question of FIXTURE_QUESTIONS) {
      assert.ok(
        texts.get(`${question.session}:1`)?.includes(question.gold_text),
        `${question.query}: "${question.gold_text}"`,
      );
    }
  },
});
