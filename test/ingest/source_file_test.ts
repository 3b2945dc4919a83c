import assert from "node:assert/strict";
import { LANGUAGE_NAMES, languageOfPath } from "../../src/ingest/code/source_file.ts";

Deno.test("languageOfPath() files a path under its grammar, markdown or text", () => {
  assert.equal(languageOfPath("src/flask/cli.py"), "python");
  assert.equal(languageOfPath("web/App.TSX"), "tsx");
  assert.equal(languageOfPath("docs/index.md"), "markdown");
  assert.equal(languageOfPath("CHANGES.rst"), "text");
  assert.equal(languageOfPath("Makefile"), "text");
  for (const path of ["a.py", "a.md", "a.txt", "a.go"]) {
    assert.ok(LANGUAGE_NAMES.includes(languageOfPath(path)));
  }
});
