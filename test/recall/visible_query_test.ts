import assert from "node:assert/strict";
import { visibleQuery } from "../../src/recall/visible_query.ts";

Deno.test("an issue's template comments are not part of what it asks", () => {
  const issue = [
    "Infinite loop when input file is output file",
    "<!--",
    "Hey there, thanks for creating an issue!",
    "Please run the script at diagnostics/info.sh",
    "-->",
    "",
    "",
    "**What version of `bat` are you using?** <!-- Output of `bat --version` --> 0.15.4",
  ].join("\n");
  assert.equal(
    visibleQuery(issue),
    "Infinite loop when input file is output file\n\n**What version of `bat` are you using?**  0.15.4",
  );
});

Deno.test("a query with no comment, nothing but one, or of one line, is kept as it is", () => {
  assert.equal(visibleQuery("where is <b> parsed?"), "where is <b> parsed?");
  assert.equal(visibleQuery("<!-- TODO -->\n<!-- more -->"), "<!-- TODO -->\n<!-- more -->");
  assert.equal(
    visibleQuery("which files use <!-- prettier-ignore -->?"),
    "which files use <!-- prettier-ignore -->?",
  );
  assert.equal(visibleQuery("an unclosed <!-- comment"), "an unclosed <!-- comment");
});
