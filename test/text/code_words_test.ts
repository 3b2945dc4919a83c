import assert from "node:assert/strict";
import { codeWords, embeddedChunkText } from "../../text/code_words.ts";

Deno.test("codeWords turns each run of punctuation into a space and keeps words, numbers, _ and lines", () => {
  assert.equal(
    codeWords("in class FunctionDocumenter\n    def format_signature(self, **kwargs: Any) -> str:"),
    "in class FunctionDocumenter\n def format_signature self kwargs Any str ",
  );
  assert.equal(codeWords("x[0] = y.get('k', 42) # é\tok"), "x 0 y get k 42 é ok");
  assert.equal(codeWords("$a ?? @b"), " a b");
});

Deno.test("embeddedChunkText reads code as words only for a model that asks, and prose always as written", () => {
  const code = "def f(x):\n    return x.y";
  assert.equal(
    embeddedChunkText("src/a.py", "python", code),
    "src/a.py\ndef f(x):\n    return x.y",
  );
  assert.equal(
    embeddedChunkText("src/a.py", "python", code, "words"),
    "src/a.py\ndef f x \n return x y",
  );
  const prose = "Install it: `pip install a`.";
  assert.equal(embeddedChunkText("README.md", "markdown", prose, "words"), `README.md\n${prose}`);
  assert.equal(embeddedChunkText("NOTES", "text", prose, "words"), `NOTES\n${prose}`);
});
