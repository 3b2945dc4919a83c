import assert from "node:assert/strict";
import { QUERY_WINDOWS, queryWindows } from "../../src/recall/query_windows.ts";

Deno.test("queryWindows() gives a question of one window as it is", () => {
  assert.deepEqual(queryWindows("why does login fail?", () => 0), ["why does login fail?"]);
});

Deno.test("queryWindows() reads a long question's first window and its most telling others, in order", () => {
  const title = "Session.resolve_redirects copies the original request";
  const filler = (word: string) => `${word} `.repeat(280).trim();
  const parts = ["intro", "plain", "traceback", "plain", "more", "plain", "resolve"].map(filler);
  const query = [title, ...parts].join("\n");
  const weights: Record<string, number> = { traceback: 9, resolve: 7, more: 3, plain: 1 };
  const weight = (text: string) => weights[text.split("\n")[1]!.split(" ")[0]!] ?? 0;
  const windows = queryWindows(query, weight);
  assert.equal(windows.length, QUERY_WINDOWS);
  assert.ok(windows[0]!.startsWith(title), "the first window, whatever its words");
  // Each later window starts with the question's first line, then its own part.
  assert.deepEqual(windows.slice(1).map((w) => w.split("\n")[1]!.split(" ")[0]), [
    "traceback",
    "more",
    "resolve",
  ]);
  assert.ok(windows.slice(1).every((w) => w.startsWith(`${title}\n`)));
});
