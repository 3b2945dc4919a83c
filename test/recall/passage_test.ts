import assert from "node:assert/strict";
import {
  answeringWindow,
  codeExcerpt,
  definitionLine,
  withoutScope,
} from "../../src/recall/passage.ts";

const TURN = "Let me look at the deployment first. I checked the Procfile and the build logs. " +
  "Everything builds fine on CI. We decided to host it on the Render free tier and reseed the " +
  "database on boot, since the free Postgres is wiped every 90 days. Then I fixed the README. " +
  "Finally I ran the whole test suite again and it passed.";

Deno.test("answeringWindow() shows the sentence that answers, with its neighbours, even far in", () => {
  const window = answeringWindow(TURN, "where did we decide to host the app?", 200);
  assert.match(window, /Render free tier and reseed the database on boot/);
  assert.ok(window.startsWith("… "), window);
  assert.ok(window.length <= 200 + 4, `${window.length}`);
});

Deno.test("answeringWindow() keeps a short text whole and starts at the top when nothing matches", () => {
  assert.equal(answeringWindow("  short\n text ", "anything", 100), "short · text");
  const start = answeringWindow(TURN, "kubernetes helm chart", 60);
  assert.ok(start.startsWith("Let me look at the deployment first."), start);
  assert.ok(start.endsWith(" …"));
  assert.ok(start.length <= 62);
});

Deno.test("answeringWindow() cuts a long sentence around its first matched word", () => {
  const long = "intro ".repeat(60) + "the webhook retry limit is seven attempts " +
    "tail ".repeat(60);
  const window = answeringWindow(long, "webhook retries", 80);
  assert.match(window, /webhook retry limit is seven/);
  assert.ok(window.length <= 84, `${window.length}`);
});

const CHUNK = [
  "def url_for(endpoint, **values):",
  '    """Generates a URL to the given endpoint."""',
  "    appctx = _app_ctx_stack.top",
  "    reqctx = _request_ctx_stack.top",
  "    if appctx is None:",
  '        raise RuntimeError("Attempted to generate a URL without the application context")',
  "    anchor = values.pop('_anchor', None)",
  "    method = values.pop('_method', None)",
  "    return rv",
].join("\n");

Deno.test("codeExcerpt() shows the signature and the lines that match, gaps marked", () => {
  const excerpt = codeExcerpt(
    CHUNK,
    "RuntimeError: Attempted to generate a URL without the application context",
    {
      matched: 1,
    },
  );
  assert.deepEqual(excerpt.split("\n"), [
    "def url_for(endpoint, **values):",
    "⋮",
    '        raise RuntimeError("Attempted to generate a URL without the application context")',
    "⋮",
  ]);
});

Deno.test("codeExcerpt() puts the definition's signature before a continuation part", () => {
  const part =
    "    anchor = values.pop('_anchor', None)\n    method = values.pop('_method', None)\n    return rv";
  const excerpt = codeExcerpt(part, "where is the _method value popped?", {
    signature: "def url_for(endpoint, **values):",
    matched: 1,
  });
  assert.deepEqual(excerpt.split("\n"), [
    "def url_for(endpoint, **values):",
    "⋮",
    "    method = values.pop('_method', None)",
    "⋮",
  ]);
});

Deno.test("codeExcerpt() without a match shows the first lines", () => {
  assert.deepEqual(codeExcerpt(CHUNK, "zebra", { matched: 1 }).split("\n"), [
    "def url_for(endpoint, **values):",
    '    """Generates a URL to the given endpoint."""',
    "⋮",
  ]);
});

Deno.test("answeringWindow() breaks a turn at its lines and fills the room left with what follows", () => {
  const turn = [
    "User: Sales wants a public demo that prospects can click through. Set one up.",
    'User answered "Where should the demo run?": Fly.io, because a demo that falls asleep looks broken',
    "→ Write fly.toml → Bash: fly deploy",
    "Assistant: The demo runs on Fly.io with one always-on machine and resets every night at 03:00.",
  ].join("\n");
  const window = answeringWindow(turn, "which provider runs the prospect demo?", 200);
  assert.match(window, /^User: Sales wants a public demo/);
  assert.match(window, / · User answered "Where should the demo run\?": Fly\.io, because a demo/);
  assert.match(window, /broken → Write fly\.toml/, "a tool's line keeps its arrow alone");
  assert.ok(window.endsWith(" …") && window.length <= 204, window);
});

Deno.test("codeExcerpt() starts at the line that defines the name, past its doc comment", () => {
  const chunk = [
    "/**",
    " * Multiplies the fused score of chunks in files the query does not ask for.",
    " */",
    "function lowerFiles(fused: SourceFused[], kinds: LoweredKind[]): SourceFused[] {",
    "  const scored = fused.map((f) => f);",
    "  return scored.sort(byScore);",
    "}",
  ].join("\n");
  assert.deepEqual(
    codeExcerpt(chunk, "sort by score", { name: "recall.lowerFiles", matched: 1 }).split("\n"),
    [
      "⋮",
      "function lowerFiles(fused: SourceFused[], kinds: LoweredKind[]): SourceFused[] {",
      "⋮",
      "  return scored.sort(byScore);",
      "⋮",
    ],
  );
  assert.equal(
    definitionLine(chunk, "lowerFiles"),
    "function lowerFiles(fused: SourceFused[], kinds: LoweredKind[]): SourceFused[] {",
  );
  assert.equal(
    definitionLine(chunk),
    " * Multiplies the fused score of chunks in files the query does not ask for.",
    "no name: the first line that says something",
  );
  assert.equal(definitionLine('"""\nFile formats read here.\n"""'), "File formats read here.");
  assert.equal(definitionLine("x = 1", "operator+"), "x = 1", "a name with regex characters");
});

Deno.test("withoutScope() drops the chunker's scope line, continued or not, and only that", () => {
  assert.equal(withoutScope("in class Request\n    def send(self):"), "    def send(self):");
  assert.equal(
    withoutScope("in method Order.process (continued)\n    total += 1"),
    "    total += 1",
  );
  assert.equal(withoutScope("in order to ship, we\nwait"), "in order to ship, we\nwait");
});
