import assert from "node:assert/strict";
import { PLAIN_PROGRESS_EVERY_MS, ProgressLine } from "../../src/cli/progress.ts";
import { indexProgressText, vectorProgressText } from "../../src/ops/progress_text.ts";

Deno.test("progress texts give counts, rate and time left once there is a rate", () => {
  assert.equal(
    indexProgressText({ checked: 600, total: 1400, indexed: 580, chunks: 5230 }, 5),
    "files 600/1400 (42%), 5230 chunks, 120 files/s, about 7 s left",
  );
  assert.equal(
    indexProgressText({ checked: 0, total: 10, indexed: 0, chunks: 0 }, 0),
    "files 0/10 (0%), 0 chunks",
  );
  assert.equal(
    vectorProgressText(30, 400, 10),
    "vectors: 30 done, 400 left, 3.0 texts/s, about 134 s left",
  );
});

Deno.test("off a terminal, ProgressLine prints the first state, then one line per 10 s at most", () => {
  const lines: string[] = [];
  let now = 1_000;
  const line = new ProgressLine((text) => lines.push(text), false, () => now);
  line.show("files 1/900");
  for (let i = 2; i <= 900; i++) {
    now += 50;
    line.show(`files ${i}/900`);
  }
  line.end();
  assert.equal(899 * 50, 44_950, "45 s of progress, a state every 50 ms");
  assert.deepEqual(lines, [
    "files 1/900",
    "files 201/900",
    "files 401/900",
    "files 601/900",
    "files 801/900",
  ]);
  assert.equal(PLAIN_PROGRESS_EVERY_MS, 10_000);
});

Deno.test("off a terminal, a step whose share is known also prints at each tenth of the way", () => {
  const lines: string[] = [];
  const line = new ProgressLine((text) => lines.push(text), false, () => 0);
  for (let done = 0; done <= 100; done++) line.show(`${done}/100`, done / 100);
  assert.deepEqual(lines, Array.from({ length: 11 }, (_, tenth) => `${tenth * 10}/100`));
});
