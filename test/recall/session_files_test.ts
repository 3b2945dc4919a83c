import assert from "node:assert/strict";
import { fileHints, turnVectorList } from "../../src/recall/session_files.ts";

Deno.test("fileHints() reads paths, file names and folders from a query, cleaned", () => {
  assert.deepEqual(
    fileHints(
      "why was ci.yml changed, and what about `src/ingest/`? See ./Makefile and 'parser.rs'.",
    ),
    ["ci.yml", "src/ingest", "makefile", "parser.rs"],
  );
  assert.deepEqual(fileHints("what did we try for the flaky test last time?"), []);
  assert.deepEqual(fileHints("e.g. the U.S. and v1.2 and https://x.io/a.ts"), []);
});

Deno.test("turnVectorList() drops far turns unless they touched a named file, and lets file-only turns in at the file distance", () => {
  const list = turnVectorList(
    [
      { id: "near", distance: 0.2 },
      { id: "far-file", distance: 0.6 },
      { id: "far", distance: 0.5 },
      { id: "mid", distance: 0.42 },
    ],
    [
      { id: "only-file", hints: 2, files: 3 },
      { id: "far-file", hints: 1, files: 1 },
    ],
    { threshold: 0.45, fileDistance: 0.4 },
  );
  assert.deepEqual(list, [
    { id: "near", distance: 0.2 },
    { id: "only-file", distance: 0.4 },
    { id: "far-file", distance: 0.4 },
    { id: "mid", distance: 0.42 },
  ]);
});
