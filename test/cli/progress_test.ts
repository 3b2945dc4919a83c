import assert from "node:assert/strict";
import { embeddingProgressText, indexProgressText, ProgressLine } from "../../src/cli/progress.ts";

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
    embeddingProgressText(3, 40, 10),
    "embeddings: 40 files left, 0.3 files/s, about 134 s left",
  );
});

Deno.test("ProgressLine prints plain lines when standard error is not a terminal", () => {
  const lines: string[] = [];
  const line = new ProgressLine((text) => lines.push(text), false);
  line.show("files 1/2 (50%), 3 chunks");
  line.show("files 2/2 (100%), 5 chunks");
  line.end();
  assert.deepEqual(lines, ["files 1/2 (50%), 3 chunks", "files 2/2 (100%), 5 chunks"]);
});
