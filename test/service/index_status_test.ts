import assert from "node:assert/strict";
import { statusLines } from "../../src/service/index_status.ts";

Deno.test("statusLines() lists the first files a run skipped and counts the rest", () => {
  const examples = Array.from({ length: 20 }, (_, i) => ({
    path: `data/table_${i}.csv`,
    reason: "data table",
  }));
  const lines = statusLines({
    project: "shop",
    root: "/src/shop",
    files: 4,
    chunks: 9,
    lastIndexed: "2026-11-29T08:00:00.000Z",
    lastRun: {
      project: "shop",
      root: "/src/shop",
      scanned: 27,
      indexed: 4,
      unchanged: 0,
      removed: 0,
      skipped: 23,
      skippedByReason: { "data table": 23 },
      skippedExamples: examples,
      chunks: 9,
      seconds: 0.5,
      finishedAt: "2026-11-29T08:00:00.000Z",
    },
  });
  assert.equal(lines.filter((line) => line.includes("data/table_")).length, 20);
  assert.equal(lines.at(-1), "    … and 3 more files");
});
