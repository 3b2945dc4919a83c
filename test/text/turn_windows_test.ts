import assert from "node:assert/strict";
import { turnWindows } from "../../text/turn_windows.ts";

Deno.test("turnWindows() keeps a short turn whole", () => {
  const text = "User: fix the flaky test\nAssistant: retried the socket read";
  assert.deepEqual(turnWindows(text), [text]);
});

Deno.test("turnWindows() cuts a long turn at lines, each window under the limit and headed by the prompt", () => {
  const lines = Array.from({ length: 30 }, (_, i) => `→ Edit src/step_${i}.ts`);
  const text = ["User: rename every step", ...lines].join("\n");
  const windows = turnWindows(text, 120);
  assert.ok(windows.length > 1);
  for (const window of windows) assert.ok(window.length <= 120, window);
  assert.ok(windows.slice(1).every((window) => window.startsWith("User: rename every step\n")));
  const body = [windows[0]!, ...windows.slice(1).map((w) => w.split("\n").slice(1).join("\n"))];
  assert.equal(body.join("\n"), text, "every line is in exactly one window, in order");
});

Deno.test("turnWindows() cuts a line longer than a window inside it", () => {
  const text = `User: why?\nAssistant: ${"x".repeat(250)}`;
  const windows = turnWindows(text, 100);
  for (const window of windows) assert.ok(window.length <= 100, `${window.length}`);
  const rest = windows.slice(1).map((w) => w.slice("User: why?\n".length));
  const flat = (s: string) => s.replaceAll("\n", "");
  assert.equal(flat([windows[0], ...rest].join("")), flat(text), "nothing lost, nothing doubled");
});
